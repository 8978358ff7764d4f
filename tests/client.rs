//! Typed clients against `kubegen::testing::ApiServer`: every client method and every
//! apiserver semantic operators rely on, a module per topic (writes, lists, watches, the
//! server, built-in kinds). With a real apiserver configured, the same tests run there (with
//! the test binary's CRDs installed); tests that need fault injection or server knobs run in
//! memory only. The helpers they share are here.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use kubegen::client::{
    ClientError, DeleteParams, Deleted, ListParams, Patch, PatchParams, PostParams, Preconditions,
    WatchEvent, WatchParams,
};
use serde_json::json;

use crate::fixtures::gadgets;

use gadgets::api::*;
use gadgets::{gadget, rv};
use kubegen::testing::TestEnv;

mod builtin;
mod crud;
mod lists;
mod server;
mod watches;

async fn next_event(
    stream: &mut (impl futures::Stream<Item = kubegen::client::Result<WatchEvent<Gadget>>> + Unpin),
) -> WatchEvent<Gadget> {
    loop {
        let event = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("an event in time")
            .expect("stream open")
            .unwrap();
        if !matches!(event, WatchEvent::Bookmark(_)) {
            return event;
        }
    }
}
