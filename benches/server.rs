//! Throughput of the in-memory API server through kubegen's typed client, against the same
//! requests through a plain `kube::Api` (the peer) in the same run: the ratio is the typed
//! client's overhead, the absolute figure the server's operations per second.
//!
//! `cargo bench --features testing --bench server`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kubegen::client::{ListParams, PostParams};
use kubegen::prelude::*;
use kubegen::testing::ApiServer;

/// A small namespaced kind with status.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "bench.kubegen.dev",
    version = "v1",
    kind = "Item",
    status = "ItemStatus"
)]
pub struct ItemSpec {
    #[validate(minimum = 0)]
    pub count: i32,
    pub label: String,
}

#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
pub struct ItemStatus {
    pub seen: Option<i32>,
}

fn item(name: &str) -> Item {
    Item::new(
        name,
        ItemSpec {
            count: 1,
            label: "bench".into(),
        },
    )
}

fn throughput(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    // kube::Client spawns its request buffer, so it is built inside the runtime.
    let _entered = rt.enter();
    let server = ApiServer::new();
    for namespace in ["bench", "bench-raw", "listing"] {
        server.create_namespace(namespace).expect("a namespace");
    }
    let client = server.client();
    let typed = client.items("bench");
    let raw: kube::Api<Item> = kube::Api::namespaced(client.clone(), "bench-raw");

    let mut group = c.benchmark_group("create_get_update");
    // Each iteration is three requests: create, get, update.
    group.throughput(Throughput::Elements(3));
    let mut n = 0u64;
    group.bench_function("typed_client", |b| {
        b.iter(|| {
            n += 1;
            rt.block_on(async {
                let name = format!("t{n}");
                typed.create(&item(&name)).await.expect("create");
                let mut got = typed.get(&name).await.expect("get");
                got.spec.count += 1;
                typed.update(&got).await.expect("update");
            })
        })
    });
    let mut m = 0u64;
    group.bench_function("kube_api_peer", |b| {
        b.iter(|| {
            m += 1;
            rt.block_on(async {
                let name = format!("r{m}");
                raw.create(&PostParams::default(), &item(&name))
                    .await
                    .expect("create");
                let mut got = raw.get(&name).await.expect("get");
                got.spec.count += 1;
                raw.replace(&name, &PostParams::default(), &got)
                    .await
                    .expect("update");
            })
        })
    });
    group.finish();

    let mut lists = c.benchmark_group("list_100");
    let listing = client.items("listing");
    rt.block_on(async {
        for i in 0..100 {
            listing.create(&item(&format!("l{i}"))).await.expect("seed");
        }
    });
    let raw_listing: kube::Api<Item> = kube::Api::namespaced(client.clone(), "listing");
    lists.throughput(Throughput::Elements(1));
    lists.bench_function("typed_client", |b| {
        b.iter(|| {
            rt.block_on(listing.list(&ListParams::default()))
                .expect("list")
        })
    });
    lists.bench_function("kube_api_peer", |b| {
        b.iter(|| {
            rt.block_on(raw_listing.list(&ListParams::default()))
                .expect("list")
        })
    });
    lists.finish();
}

criterion_group!(benches, throughput);
criterion_main!(benches);
