//! Watches: replay from a resourceVersion, fan-out with selection changes, bookmarks, 410 Gone,
//! bounded queues.

use super::*;

pub(super) struct Event {
    pub(super) rv: u64,
    pub(super) kind: usize,
    pub(super) namespace: String,
    pub(super) event_type: &'static str,
    pub(super) old: Option<Arc<Value>>,
    pub(super) new: Arc<Value>,
}

/// How one watcher sees an event.
enum Shown {
    /// The event's object, as this type of event.
    Object(&'static str),
    /// A DELETED event with the object as it was before it left the selection.
    LastSeen,
}

/// An open watch.
pub(crate) struct Watcher {
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
    pub(crate) fn watch(
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
                let initial: Vec<Arc<Value>> = self
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
                let _ = watcher.tx.try_send(event_line("ERROR", &status));
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
        match self.kinds[w.kind].converted(object, &w.version) {
            Ok(o) => event_line(event_type, &o),
            Err(e) => event_line("ERROR", &e.to_status()),
        }
    }

    pub(crate) fn bookmark(&self, w: &Watcher) -> Bytes {
        let e = &self.kinds[w.kind];
        let object = json!({
            "apiVersion": e.api_version(&w.version),
            "kind": e.kind,
            "metadata": {"resourceVersion": self.rv.to_string()},
        });
        event_line("BOOKMARK", &object)
    }

    /// What a watcher sees of an event: objects moving into or out of its selection show up
    /// as ADDED or DELETED.
    pub(super) fn render(&self, w: &Watcher, e: &Event) -> Option<Bytes> {
        match Self::shown(w, e)? {
            Shown::Object(event_type) => Some(self.frame(w, event_type, &e.new)),
            Shown::LastSeen => Some(self.frame(w, "DELETED", &Self::last_seen(e))),
        }
    }

    /// How a watcher sees an event, if at all.
    fn shown(w: &Watcher, e: &Event) -> Option<Shown> {
        if e.kind != w.kind || w.namespace.as_ref().is_some_and(|n| *n != e.namespace) {
            return None;
        }
        let now = Self::matches(&w.namespace, &w.options, &e.new);
        let before = e
            .old
            .as_ref()
            .is_some_and(|o| Self::matches(&w.namespace, &w.options, o));
        match (e.event_type, before, now) {
            ("DELETED", true, _) => Some(Shown::Object("DELETED")),
            ("DELETED", false, _) => None,
            (_, true, true) => Some(Shown::Object("MODIFIED")),
            (_, false, true) => Some(Shown::Object("ADDED")),
            (_, true, false) => Some(Shown::LastSeen),
            (_, false, false) => None,
        }
    }

    /// An object leaving a watcher's selection: the apiserver shows it as the watcher last
    /// saw it, at the event's resourceVersion.
    fn last_seen(e: &Event) -> Value {
        let mut last_seen = e.old.as_deref().cloned().unwrap_or_default();
        last_seen["metadata"]["resourceVersion"] = json!(e.rv.to_string());
        last_seen
    }

    pub(super) fn publish(&mut self, event: Event) {
        if let Some(feed) = &self.feed {
            let e = &self.kinds[event.kind];
            feed.push(crate::feed::Change {
                seq: 0,
                group: e.group,
                resource: e.plural,
                kind: e.kind,
                change: match event.event_type {
                    "ADDED" => crate::feed::ChangeType::Added,
                    "DELETED" => crate::feed::ChangeType::Deleted,
                    _ => crate::feed::ChangeType::Modified,
                },
                old: event.old.clone(),
                object: event.new.clone(),
            });
        }
        let mut closed = Vec::new();
        // Watchers of one version that see the event alike get the same bytes, encoded once.
        let mut encoded: Vec<(&'static str, &str, Bytes)> = Vec::new();
        for (i, w) in self.watchers.iter().enumerate() {
            let frame = match Self::shown(w, &event) {
                None => continue,
                Some(Shown::LastSeen) => self.frame(w, "DELETED", &Self::last_seen(&event)),
                Some(Shown::Object(event_type)) => {
                    let same =
                        |(t, v, _): &&(&str, &str, Bytes)| *t == event_type && *v == w.version;
                    match encoded.iter().find(same) {
                        Some((.., frame)) => frame.clone(),
                        None => {
                            let frame = self.frame(w, event_type, &event.new);
                            encoded.push((event_type, &w.version, frame.clone()));
                            frame
                        }
                    }
                }
            };
            // A watcher that stopped reading is dropped, keeping memory bounded; its client
            // sees the stream end and re-watches, as with a real apiserver.
            if w.tx.try_send(frame).is_err() {
                closed.push(i);
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
    pub(crate) fn compact(&mut self) {
        self.compacted = self.rv;
        self.events.clear();
    }

    /// Sends a bookmark to every watcher that asked for them; drops closed ones.
    pub(crate) fn send_bookmarks(&mut self) {
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

/// A watch event's line, `{"type": .., "object": ..}` with a line end.
pub(crate) fn event_line(event_type: &str, object: &Value) -> Bytes {
    let mut out = Vec::with_capacity(1024);
    // The fields in the order of Go's `metav1.WatchEvent`, as the apiserver writes them: a
    // client decoding the event reads its type before the object (serde's adjacently
    // tagged enums, kube's `WatchEvent` among them, must buffer an object that comes first).
    out.extend_from_slice(br#"{"type":"#);
    kubegen_go::json::write_value(&mut out, &Value::from(event_type));
    out.extend_from_slice(br#","object":"#);
    kubegen_go::json::write_value(&mut out, object);
    out.extend_from_slice(b"}\n");
    Bytes::from(out)
}
