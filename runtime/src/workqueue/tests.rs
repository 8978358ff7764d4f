use std::time::Duration;

use tokio::time::{Instant, timeout};

use super::{AddOptions, LOW_PRIORITY, WorkQueue};

fn alive_tasks() -> usize {
    tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks()
}

#[tokio::test]
async fn deduplicates_and_never_hands_one_key_to_two_workers() {
    let q: WorkQueue<&str> = WorkQueue::new();
    q.add("a");
    q.add("a");
    q.add("b");
    assert_eq!(q.len(), 2);
    let first = q.get().await.unwrap();
    assert_eq!(first, "a");
    q.add("a"); // while "a" is processing: not queued again yet
    assert_eq!(q.len(), 1);
    assert_eq!(q.get().await, Some("b"));
    q.done(&"a");
    assert_eq!(q.len(), 1, "re-queued on done");
    assert_eq!(q.get().await, Some("a"));
    q.done(&"a");
    q.done(&"b");
    q.shut_down();
    assert_eq!(q.get().await, None);
}

#[tokio::test]
async fn done_of_an_item_not_being_processed_queues_nothing() {
    let q: WorkQueue<&str> = WorkQueue::new();
    q.add("a");
    q.done(&"a");
    assert_eq!(q.len(), 1, "still queued once");
    assert_eq!(q.get().await, Some("a"));
    q.done(&"a");
    assert!(q.is_empty());
}

#[tokio::test(start_paused = true)]
async fn rate_limiting_backs_off_exponentially_per_item() {
    let q: WorkQueue<&str> =
        WorkQueue::with_backoff(Duration::from_millis(10), Duration::from_millis(50));
    let start = Instant::now();
    for expected in [10u64, 20, 40, 50, 50] {
        q.add_rate_limited("x");
        let item = q.get().await.unwrap();
        q.done(&item);
        let waited = start.elapsed();
        assert!(
            waited >= Duration::from_millis(expected),
            "{waited:?} < {expected} ms"
        );
    }
    assert_eq!(q.num_requeues(&"x"), 5);
    q.forget(&"x");
    assert_eq!(q.num_requeues(&"x"), 0);
}

#[tokio::test(start_paused = true)]
async fn delayed_items_come_out_at_their_deadlines_in_deadline_order() {
    let q: WorkQueue<u32> = WorkQueue::new();
    let start = Instant::now();
    q.add_after(3, Duration::from_secs(3));
    q.add_after(1, Duration::from_secs(1));
    q.add_after(2, Duration::from_secs(2));
    assert!(q.is_empty(), "nothing is due yet");
    for expected in 1..=3u32 {
        assert_eq!(q.get().await, Some(expected));
        assert_eq!(start.elapsed(), Duration::from_secs(u64::from(expected)));
        q.done(&expected);
    }
    assert!(
        timeout(Duration::from_secs(3600), q.get()).await.is_err(),
        "each item came out once"
    );
}

#[tokio::test(start_paused = true)]
async fn a_second_delayed_add_keeps_the_earlier_deadline() {
    let q: WorkQueue<&str> = WorkQueue::new();
    let start = Instant::now();
    q.add_after("sooner-second", Duration::from_secs(10));
    q.add_after("sooner-second", Duration::from_secs(1));
    q.add_after("sooner-first", Duration::from_secs(2));
    q.add_after("sooner-first", Duration::from_secs(20));
    assert_eq!(q.inner.state().waiting.len(), 2, "one entry per item");

    assert_eq!(q.get().await, Some("sooner-second"));
    assert_eq!(start.elapsed(), Duration::from_secs(1));
    assert_eq!(q.get().await, Some("sooner-first"));
    assert_eq!(start.elapsed(), Duration::from_secs(2));
    q.done(&"sooner-second");
    q.done(&"sooner-first");
    assert!(
        timeout(Duration::from_secs(60), q.get()).await.is_err(),
        "the later deadlines were dropped, not kept as second entries"
    );
}

#[tokio::test(start_paused = true)]
async fn a_delayed_item_already_queued_is_not_queued_twice() {
    let q: WorkQueue<&str> = WorkQueue::new();
    q.add("a");
    q.add_after("a", Duration::from_millis(10));
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(q.len(), 1);
    assert_eq!(q.get().await, Some("a"));
    q.done(&"a");
    assert!(q.is_empty());
}

#[tokio::test(start_paused = true)]
async fn one_task_waits_for_every_delayed_item_and_ends_at_shutdown() {
    let q: WorkQueue<u32> = WorkQueue::new();
    let before = alive_tasks();
    for i in 0..10_000u32 {
        q.add_after(i, Duration::from_millis(u64::from(i % 100) + 1));
    }
    tokio::task::yield_now().await;
    assert_eq!(
        alive_tasks(),
        before + 1,
        "one waiting task, not one per item"
    );

    tokio::time::sleep(Duration::from_millis(101)).await;
    assert_eq!(q.len(), 10_000, "all due, all queued");
    q.add_after(1_000_000, Duration::from_secs(60));
    q.shut_down();
    tokio::task::yield_now().await;
    assert_eq!(alive_tasks(), before, "the waiting task ended");
    let mut drained = 0;
    while let Some(item) = q.get().await {
        q.done(&item);
        drained += 1;
    }
    assert_eq!(
        drained, 10_000,
        "queued items drain; the delayed one was dropped"
    );
}

#[tokio::test(start_paused = true)]
async fn dropping_the_queue_ends_its_waiting_task() {
    let before = alive_tasks();
    let q: WorkQueue<u32> = WorkQueue::new();
    q.add_after(1, Duration::from_secs(3600));
    tokio::task::yield_now().await;
    assert_eq!(alive_tasks(), before + 1);
    drop(q);
    tokio::task::yield_now().await;
    assert_eq!(alive_tasks(), before);
}

#[tokio::test(start_paused = true)]
async fn an_earlier_deadline_wakes_the_waiting_task() {
    let q: WorkQueue<&str> = WorkQueue::new();
    let start = Instant::now();
    q.add_after("late", Duration::from_secs(3600));
    tokio::task::yield_now().await; // the task now sleeps until the late deadline
    q.add_after("early", Duration::from_secs(1));
    assert_eq!(q.get().await, Some("early"));
    assert_eq!(start.elapsed(), Duration::from_secs(1));
}

#[tokio::test(start_paused = true)]
async fn a_worker_waiting_in_get_receives_a_delayed_item() {
    let q: WorkQueue<&str> = WorkQueue::new();
    let worker = tokio::spawn({
        let q = q.clone();
        async move { q.get().await }
    });
    tokio::task::yield_now().await;
    q.add_after("a", Duration::from_millis(5));
    assert_eq!(worker.await.unwrap(), Some("a"));
}

#[tokio::test(start_paused = true)]
async fn higher_priorities_go_first_and_an_item_added_higher_moves_up() {
    let q: WorkQueue<&str> = WorkQueue::new();
    let low = AddOptions {
        priority: LOW_PRIORITY,
        ..AddOptions::default()
    };
    for item in ["old-1", "old-2", "old-3"] {
        q.add_with(item, low);
    }
    q.add("new");
    // Added again at the default priority: it moves ahead of the other low ones, keeping
    // its place in the order of adds (as controller-runtime's queue does), so before "new".
    q.add("old-3");
    let order = [
        q.get_with_priority().await.unwrap(),
        q.get_with_priority().await.unwrap(),
        q.get_with_priority().await.unwrap(),
        q.get_with_priority().await.unwrap(),
    ];
    assert_eq!(
        order,
        [
            ("old-3", 0),
            ("new", 0),
            ("old-1", LOW_PRIORITY),
            ("old-2", LOW_PRIORITY)
        ]
    );
    // Added while being processed: queued on done at the highest priority it was added with.
    q.add_with("old-1", low);
    q.add_with(
        "old-1",
        AddOptions {
            priority: 5,
            ..AddOptions::default()
        },
    );
    q.done(&"old-1");
    q.add("plain");
    assert_eq!(q.get_with_priority().await, Some(("old-1", 5)));
    assert_eq!(q.get_with_priority().await, Some(("plain", 0)));
    // Delayed and rate-limited items come back at their priority.
    let later = AddOptions {
        priority: LOW_PRIORITY,
        after: Some(Duration::from_millis(10)),
        ..AddOptions::default()
    };
    q.add_with("delayed", later);
    q.add_with(
        "retried",
        AddOptions {
            priority: 7,
            rate_limited: true,
            ..AddOptions::default()
        },
    );
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(q.num_requeues(&"retried"), 1);
    assert_eq!(q.get_with_priority().await, Some(("retried", 7)));
    assert_eq!(q.get_with_priority().await, Some(("delayed", LOW_PRIORITY)));
    q.shut_down();
}
