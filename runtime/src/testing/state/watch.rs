//! Watches: replay from a resourceVersion, fan-out with selection changes, bookmarks, 410 Gone, bounded queues.

use super::*;

pub(super) struct Event {
    pub(super) rv: u64,
    pub(super) kind: usize,
    pub(super) namespace: String,
    pub(super) event_type: &'static str,
    pub(super) old: Option<Value>,
    pub(super) new: Value,
}

/// An open watch.
pub struct Watcher {
    pub kind: usize,
    pub version: String,
    pub namespace: Option<String>,
    pub options: ListOptions,
    pub bookmarks: bool,
    pub tx: mpsc::Sender<Bytes>,
}

impl State {
    /// Opens a watch. Events since `resource_version` are replayed (or, without one, the
    /// current objects as ADDED); a resourceVersion older than the window yields one ERROR
    /// event with a 410 `Status`, as the apiserver does.
    pub fn watch(
        &mut self,
        t: &Target,
        o: ListOptions,
        resource_version: Option<&str>,
        bookmarks: bool,
    ) -> Result<mpsc::Receiver<Bytes>, ApiError> {
        let (tx, rx) = mpsc::channel(self.watch_queue.max(self.objects.len() + 16));
        let watcher = Watcher {
            kind: t.kind,
            version: t.version.clone(),
            namespace: t.namespace.clone(),
            options: o,
            bookmarks,
            tx,
        };
        let start =
            match resource_version {
                None | Some("") | Some("0") => None,
                Some(rv) => Some(rv.parse::<u64>().map_err(|_| {
                    ApiError::bad_request(format!("invalid resourceVersion `{rv}`"))
                })?),
            };
        match start {
            None => {
                let initial: Vec<Value> = self
                    .selected(t, &watcher.options)
                    .into_iter()
                    .map(|(_, v)| v.clone())
                    .collect();
                for object in initial {
                    let _ = watcher.tx.try_send(self.frame(&watcher, "ADDED", &object));
                }
            }
            Some(rv) if rv < self.compacted => {
                let status = ApiError::gone(format!(
                    "too old resource version: {rv} ({})",
                    self.compacted + 1
                ))
                .to_status();
                let _ = watcher
                    .tx
                    .try_send(line(&json!({"type": "ERROR", "object": status})));
                return Ok(rx);
            }
            Some(rv) => {
                let replay: Vec<Bytes> = self
                    .events
                    .iter()
                    .filter(|e| e.rv > rv)
                    .filter_map(|e| self.render(&watcher, e))
                    .collect();
                for frame in replay {
                    if watcher.tx.try_send(frame).is_err() {
                        return Ok(rx);
                    }
                }
            }
        }
        if bookmarks {
            let _ = watcher.tx.try_send(self.bookmark(&watcher));
        }
        self.watchers.push(watcher);
        Ok(rx)
    }

    /// An event as the watcher's version shows it; an object that does not convert is an
    /// ERROR event with the conversion's `Status`.
    pub(super) fn frame(&self, w: &Watcher, event_type: &str, object: &Value) -> Bytes {
        match self.kinds[w.kind].convert(object, &w.version) {
            Ok(o) => line(&json!({"type": event_type, "object": o})),
            Err(e) => line(&json!({"type": "ERROR", "object": e.to_status()})),
        }
    }

    pub fn bookmark(&self, w: &Watcher) -> Bytes {
        let e = &self.kinds[w.kind];
        line(&json!({
            "type": "BOOKMARK",
            "object": {"apiVersion": e.api_version(&w.version), "kind": e.kind, "metadata": {"resourceVersion": self.rv.to_string()}},
        }))
    }

    /// What a watcher sees of an event: objects moving into or out of its selection show up
    /// as ADDED or DELETED.
    pub(super) fn render(&self, w: &Watcher, e: &Event) -> Option<Bytes> {
        if e.kind != w.kind || w.namespace.as_ref().is_some_and(|n| *n != e.namespace) {
            return None;
        }
        let now = Self::matches(&w.namespace, &w.options, &e.new);
        let before = e
            .old
            .as_ref()
            .is_some_and(|o| Self::matches(&w.namespace, &w.options, o));
        match (e.event_type, before, now) {
            ("DELETED", true, _) => Some(self.frame(w, "DELETED", &e.new)),
            ("DELETED", false, _) => None,
            (_, true, true) => Some(self.frame(w, "MODIFIED", &e.new)),
            (_, false, true) => Some(self.frame(w, "ADDED", &e.new)),
            // Leaving the selection: the apiserver shows the object as the watcher last saw
            // it, at the event's resourceVersion.
            (_, true, false) => {
                let mut last_seen = e.old.clone().unwrap_or_default();
                last_seen["metadata"]["resourceVersion"] = json!(e.rv.to_string());
                Some(self.frame(w, "DELETED", &last_seen))
            }
            (_, false, false) => None,
        }
    }

    pub(super) fn publish(&mut self, event: Event) {
        if let Some(feed) = &self.feed {
            let e = &self.kinds[event.kind];
            feed.push(crate::testing::controllers::Change {
                seq: 0,
                group: e.group,
                resource: e.plural,
                kind: e.kind,
                change: match event.event_type {
                    "ADDED" => crate::testing::controllers::ChangeType::Added,
                    "DELETED" => crate::testing::controllers::ChangeType::Deleted,
                    _ => crate::testing::controllers::ChangeType::Modified,
                },
                old: event.old.clone(),
                object: event.new.clone(),
            });
        }
        let mut closed = Vec::new();
        for (i, w) in self.watchers.iter().enumerate() {
            if let Some(frame) = self.render(w, &event) {
                // A watcher that stopped reading is dropped, keeping memory bounded; its
                // client sees the stream end and re-watches, as with a real apiserver.
                if w.tx.try_send(frame).is_err() {
                    closed.push(i);
                }
            }
        }
        for i in closed.into_iter().rev() {
            self.watchers.swap_remove(i);
        }
        self.events.push_back(event);
        while self.events.len() > self.window {
            if let Some(old) = self.events.pop_front() {
                self.compacted = old.rv;
            }
        }
    }

    /// Forgets the event history: watches resuming from any earlier resourceVersion get 410.
    pub fn compact(&mut self) {
        self.compacted = self.rv;
        self.events.clear();
    }

    /// Sends a bookmark to every watcher that asked for them; drops closed ones.
    pub fn send_bookmarks(&mut self) {
        let frames: Vec<Option<Bytes>> = self
            .watchers
            .iter()
            .map(|w| w.bookmarks.then(|| self.bookmark(w)))
            .collect();
        let mut keep = Vec::with_capacity(self.watchers.len());
        for (w, frame) in self.watchers.drain(..).zip(frames) {
            let alive = match frame {
                Some(f) => w.tx.try_send(f).is_ok() || !w.tx.is_closed(),
                None => !w.tx.is_closed(),
            };
            if alive {
                keep.push(w);
            }
        }
        self.watchers = keep;
    }
}

pub(super) fn line(v: &Value) -> Bytes {
    let mut s = kubegen_go::json::to_vec(v);
    s.push(b'\n');
    Bytes::from(s)
}
