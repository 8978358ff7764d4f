//! Informer cache and lister against kube-runtime's reflector and Store, with raw
//! serde_json decoding of the same bytes as the ceiling.
//!
//! `cargo bench --bench informer`

mod support;

use std::sync::Arc;
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use kube::runtime::reflector::{self, ObjectRef};
use kube::runtime::watcher::Event;
use kubegen::cache::{Lister, Store};
use kubegen::informer::Processor;
use kubegen::selector::LabelSelector;
use support::{App, decode, decode_without_managed_fields, watch_lines};

const OBJECTS: usize = 100_000;
const NAMESPACES: usize = 100;

/// Decodes a watch event and clears managedFields, as a kube-runtime `.modify()` does.
fn decode_then_strip(line: &[u8]) -> App {
    let mut app = decode(line);
    kubegen::informer::strip_managed_fields(&mut app);
    app
}

fn ingest(c: &mut Criterion) {
    let lines = watch_lines(OBJECTS, NAMESPACES);
    let bytes: usize = lines.iter().map(Vec::len).sum();
    eprintln!(
        "ingest: {OBJECTS} objects, {} bytes of watch JSON on average",
        bytes / OBJECTS
    );
    let mut g = c.benchmark_group("ingest_100k");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Elements(OBJECTS as u64));
    g.bench_function("raw_serde_json_decode", |b| {
        b.iter_batched(
            || (),
            |_| lines.iter().map(|l| decode(l)).collect::<Vec<App>>(),
            BatchSize::PerIteration,
        )
    });
    ingest_both(&mut g, &lines, decode, decode);
    g.finish();

    // Both caches without managedFields, as operators usually run them: kube-runtime's way is
    // a `.modify()` on the watch stream (decode, then clear); kubegen's informer option skips
    // the bytes while decoding.
    let mut g = c.benchmark_group("ingest_100k_managed_fields_stripped");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Elements(OBJECTS as u64));
    ingest_both(
        &mut g,
        &lines,
        decode_without_managed_fields,
        decode_then_strip,
    );
    g.finish();
}

/// The kubegen informer's processor and kube-runtime's reflector, each fed every line
/// through its own decoder.
fn ingest_both(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    lines: &[Vec<u8>],
    kubegen_decode: fn(&[u8]) -> App,
    kube_decode: fn(&[u8]) -> App,
) {
    g.bench_function("kubegen_informer", |b| {
        b.iter_batched(
            || Processor::new(Arc::new(Store::<App>::new())),
            |mut p| {
                for l in lines {
                    p.apply(Event::Apply(kubegen_decode(l)));
                }
                p
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("kube_runtime_reflector", |b| {
        b.iter_batched(
            reflector::store::<App>,
            |(reader, mut writer)| {
                for l in lines {
                    writer.apply_watcher_event(&Event::Apply(kube_decode(l)));
                }
                (reader, writer)
            },
            BatchSize::PerIteration,
        )
    });
}

fn filled() -> (Lister<App>, reflector::Store<App>) {
    let lines = watch_lines(OBJECTS, NAMESPACES);
    let mut p = Processor::new(Arc::new(Store::<App>::new()));
    let (reader, mut writer) = reflector::store::<App>();
    for l in &lines {
        let app = decode(l);
        writer.apply_watcher_event(&Event::Apply(app.clone()));
        p.apply(Event::Apply(app));
    }
    (Lister::new(p.store().clone()), reader)
}

fn reads(c: &mut Criterion) {
    let (lister, reader) = filled();
    let ns = "team-042";
    let everything = LabelSelector::everything();
    assert_eq!(
        lister.namespace(ns).list(&everything).len(),
        OBJECTS / NAMESPACES
    );

    let mut g = c.benchmark_group("list_one_namespace_1k_of_100k");
    g.throughput(Throughput::Elements((OBJECTS / NAMESPACES) as u64));
    g.bench_function("kubegen_lister", |b| {
        b.iter(|| lister.namespace(ns).list(&everything))
    });
    g.bench_function("kube_store_state_filter", |b| {
        b.iter(|| reader.state_filter(|o: &App| o.metadata.namespace.as_deref() == Some(ns)))
    });
    g.finish();

    let mut g = c.benchmark_group("get_by_key");
    let key = ObjectRef::<App>::new("app-004242").within(ns);
    g.bench_function("kubegen_lister", |b| {
        b.iter(|| lister.namespace(ns).get("app-004242"))
    });
    g.bench_function("kube_store_get", |b| b.iter(|| reader.get(&key)));
    g.finish();
}

fn deep_copy(c: &mut Criterion) {
    use kubegen::DeepCopy;
    let src: Vec<App> = watch_lines(64, 4).iter().map(|l| decode(l)).collect();
    let mut g = c.benchmark_group("copy_into_existing_object");
    g.throughput(Throughput::Elements(src.len() as u64));
    let mut dst: Vec<App> = src.to_vec();
    g.bench_function("deep_copy_into", |b| {
        b.iter(|| {
            for (s, d) in src.iter().zip(dst.iter_mut()) {
                s.deep_copy_into(d);
            }
        })
    });
    let mut dst2: Vec<App> = src.to_vec();
    g.bench_function("clone_assign", |b| {
        b.iter(|| {
            for (s, d) in src.iter().zip(dst2.iter_mut()) {
                *d = s.clone();
            }
        })
    });
    g.finish();
}

criterion_group!(benches, ingest, reads, deep_copy);
criterion_main!(benches);
