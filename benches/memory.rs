//! Memory per cached object: kubegen's informer cache (decoded, with managedFields stripped,
//! with only this process's managedFields kept, and packed) against kube-runtime's
//! reflector Store, for 100,000
//! realistic objects. Heap bytes come from a counting allocator; RSS from /proc. Each
//! variant runs in its own child process so one does not inflate the other.
//!
//! `cargo bench --bench memory`

mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};

use kube::runtime::reflector;
use kube::runtime::watcher::Event;
use kubegen::cache::Store;
use kubegen::informer::Processor;

struct Counting;

static HEAP: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call forwards to the system allocator unchanged; the counter is only
// arithmetic on the sizes the caller passes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        HEAP.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same contract as this function's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HEAP.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same contract as this function's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        HEAP.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: same contract as this function's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const OBJECTS: usize = 100_000;

fn rss_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// Runs one variant in this process and prints `heap_per_object rss_per_object`.
fn measure(mode: &str) {
    let lines = support::watch_lines(OBJECTS, 100);
    let (heap0, rss0) = (HEAP.load(Ordering::SeqCst), rss_bytes());
    let keep: Box<dyn std::any::Any> = match mode {
        "kubegen" | "kubegen-strip" | "kubegen-own" | "kubegen-packed" => {
            // Stripping as `SharedIndexInformer::strip_managed_fields` does: skipped while
            // decoding (the `strip_managed_fields` transform leaves the same objects). Keeping
            // the entries of the manager this process writes as (every object's one entry
            // here) as `keep_managed_fields_of` does: fieldsV1 read as text, then filtered.
            let decode = match mode {
                "kubegen-strip" => support::decode_without_managed_fields,
                "kubegen-own" => support::decode_compact,
                _ => support::decode,
            };
            let store = Arc::new(Store::<support::App>::new());
            if mode == "kubegen-packed" {
                assert!(store.pack(), "an empty store packs");
            }
            let keep = ["app-operator".to_owned()];
            let mut p = Processor::new(store);
            for l in &lines {
                let mut object = decode(l);
                if mode == "kubegen-own" {
                    kubegen::informer::keep_managed_fields_of(&mut object, &keep);
                }
                p.apply(Event::Apply(object));
            }
            // What is read back is the whole object, managedFields included.
            let last = p
                .store()
                .get(Some("team-099"), &format!("app-{:06}", OBJECTS - 1))
                .expect("the last object is cached");
            assert_eq!(
                last.metadata.managed_fields.is_some(),
                mode != "kubegen-strip"
            );
            Box::new(p)
        }
        "kube" => {
            let (reader, mut writer) = reflector::store::<support::App>();
            for l in &lines {
                writer.apply_watcher_event(&Event::Apply(support::decode(l)));
            }
            Box::new((reader, writer))
        }
        other => panic!("unknown mode {other}"),
    };
    let heap = (HEAP.load(Ordering::SeqCst) - heap0) as f64 / OBJECTS as f64;
    let rss = rss_bytes().saturating_sub(rss0) as f64 / OBJECTS as f64;
    println!("{heap:.0} {rss:.0}");
    drop(keep);
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if let Some(mode) = args.first() {
        return measure(mode);
    }
    let exe = std::env::current_exe().expect("own path");
    let run = |mode: &str| -> (f64, f64) {
        let out = std::process::Command::new(&exe)
            .arg(mode)
            .output()
            .expect("child ran");
        let text = String::from_utf8_lossy(&out.stdout);
        let mut it = text
            .split_whitespace()
            .map(|v| v.parse::<f64>().unwrap_or(f64::NAN));
        (it.next().unwrap_or(f64::NAN), it.next().unwrap_or(f64::NAN))
    };
    let kube = run("kube");
    let kubegen = run("kubegen");
    let strip = run("kubegen-strip");
    let own = run("kubegen-own");
    let packed = run("kubegen-packed");
    println!("memory per cached object ({OBJECTS} objects, ~1.1 KiB of JSON each)");
    println!("{:<36} {:>12} {:>12}", "", "heap bytes", "RSS bytes");
    println!(
        "{:<36} {:>12.0} {:>12.0}",
        "kube-runtime reflector Store", kube.0, kube.1
    );
    println!(
        "{:<36} {:>12.0} {:>12.0}",
        "kubegen cache (namespace index)", kubegen.0, kubegen.1
    );
    println!(
        "{:<36} {:>12.0} {:>12.0}",
        "kubegen cache, managedFields stripped", strip.0, strip.1
    );
    println!(
        "{:<36} {:>12.0} {:>12.0}",
        "kubegen cache, own managedFields", own.0, own.1
    );
    println!(
        "{:<36} {:>12.0} {:>12.0}",
        "kubegen cache, packed (pack_objects)", packed.0, packed.1
    );
    println!(
        "ratio kubegen/kube: heap {:.2}, RSS {:.2}",
        kubegen.0 / kube.0,
        kubegen.1 / kube.1
    );
    println!(
        "ratio kubegen-stripped/kube: heap {:.2}, RSS {:.2}",
        strip.0 / kube.0,
        strip.1 / kube.1
    );
    println!(
        "ratio kubegen-own/kube: heap {:.2}, RSS {:.2}",
        own.0 / kube.0,
        own.1 / kube.1
    );
    println!(
        "ratio kubegen-packed/kube: heap {:.2}, RSS {:.2}",
        packed.0 / kube.0,
        packed.1 / kube.1
    );
}
