//! client-go's event spam filter: a token bucket per object and event type, in a bounded
//! least-recently-used map.

use std::num::NonZeroUsize;
use std::time::Duration;

use k8s_openapi::api::core::v1::ObjectReference;
use kube::runtime::events::EventType;
use lru::LruCache;
use tokio::time::Instant;

/// How many events one object may receive, per event type, before the spam filter holds
/// them back. The defaults are client-go's (`EventSourceObjectSpamFilter`): a burst of 25,
/// then one event every 5 minutes, for the 4096 most recently seen objects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpamFilterConfig {
    /// Events an object may receive at once (the bucket size); 0 turns the filter off.
    pub burst: u32,
    /// How long the bucket takes to earn back one event.
    pub refill_interval: Duration,
    /// How many (object, type) buckets are kept; the least recently used is forgotten
    /// (and so starts over with a full burst).
    pub max_tracked: NonZeroUsize,
}

impl Default for SpamFilterConfig {
    fn default() -> Self {
        SpamFilterConfig {
            burst: 25,
            refill_interval: Duration::from_secs(300),
            // 4096 is not zero.
            max_tracked: NonZeroUsize::new(4096).unwrap_or(NonZeroUsize::MIN),
        }
    }
}

/// What identifies an event stream for the filter: the regarding object and the event type
/// (client-go's spam key, less the reporter, which is fixed per recorder). Reason and note
/// are not in it, so a controller cannot dodge the filter by varying its message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct SpamKey {
    api_version: Option<String>,
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    uid: Option<String>,
    type_: EventType,
}

/// A token bucket kept as the instant it would be full again (the generic cell rate
/// algorithm): exact in integer time, where a count of fractional tokens would drift.
struct Bucket {
    full_at: Instant,
}

pub(super) struct SpamFilter {
    config: SpamFilterConfig,
    buckets: LruCache<SpamKey, Bucket>,
}

impl SpamFilter {
    pub(super) fn new(config: SpamFilterConfig) -> Self {
        SpamFilter {
            buckets: LruCache::new(config.max_tracked),
            config,
        }
    }

    /// Whether an event of `type_` about `regarding` may go out at `now`; takes a token if so.
    pub(super) fn allow(
        &mut self,
        regarding: &ObjectReference,
        type_: EventType,
        now: Instant,
    ) -> bool {
        if self.config.burst == 0 {
            return true;
        }
        let key = SpamKey {
            api_version: regarding.api_version.clone(),
            kind: regarding.kind.clone(),
            namespace: regarding.namespace.clone(),
            name: regarding.name.clone(),
            uid: regarding.uid.clone(),
            type_,
        };
        let interval = self.config.refill_interval;
        let bucket = self
            .buckets
            .get_or_insert_mut(key, || Bucket { full_at: now });
        let full_at = bucket.full_at.max(now);
        // Tokens spent and not yet earned back, as time: the bucket holds
        // burst − backlog/interval tokens, so one is left while the backlog is at most
        // (burst − 1) intervals.
        let backlog = full_at - now;
        if backlog > interval.saturating_mul(self.config.burst - 1) {
            return false;
        }
        bucket.full_at = full_at.checked_add(interval).unwrap_or(full_at);
        true
    }

    #[cfg(test)]
    pub(super) fn tracked(&self) -> usize {
        self.buckets.len()
    }
}
