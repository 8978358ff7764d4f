//! When a CronJob's Jobs are due (`pkg/controller/cronjob/utils.go`): the most recent
//! scheduled time it has not started yet, how many it missed, and when to look again —
//! all in the schedule's zone, on the cluster's clock.

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;

use crate::builtin::validate::cron::{self, Schedule};

/// `nextScheduleDelta`: a CronJob is synced this long after its schedule, for clock skew.
const NEXT_SCHEDULE_DELTA: SignedDuration = SignedDuration::from_millis(100);
/// More missed schedules than this are "many" (a warning).
const MANY_MISSED: i64 = 100;

/// How many schedules passed unstarted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Missed {
    None,
    Few,
    Many,
}

/// What `mostRecentScheduleTime` finds: the time counted from (the last schedule or the
/// CronJob's creation), the most recent scheduled time not after now, and how many were
/// missed.
#[derive(Debug)]
pub(super) struct Recent {
    pub earliest: Timestamp,
    pub most_recent: Option<Timestamp>,
    pub missed: Missed,
}

/// The schedule a CronJob's spec gives (`formatSchedule`): `TZ=<timeZone>` before it
/// when a loadable `timeZone` is set, unless it names a zone itself.
pub(super) fn schedule_text(cron_job: &Value) -> String {
    let schedule = cron_job["spec"]["schedule"].as_str().unwrap_or("");
    if schedule.contains("TZ") {
        return schedule.to_owned();
    }
    match cron_job["spec"]["timeZone"].as_str() {
        Some(zone) if cron::load_location(zone).is_ok() => format!("TZ={zone} {schedule}"),
        _ => schedule.to_owned(),
    }
}

/// `mostRecentScheduleTime`; `Err` (with the earliest time) for a schedule whose two next
/// times are less than a second apart — one that never fires.
pub(super) fn most_recent(
    cron_job: &Value,
    now: Timestamp,
    schedule: &Schedule,
    with_deadline: bool,
) -> Result<Recent, (Timestamp, String)> {
    let time = |v: &Value| v.as_str().and_then(|s| s.parse::<Timestamp>().ok());
    let mut earliest = time(&cron_job["status"]["lastScheduleTime"])
        .or_else(|| time(&cron_job["metadata"]["creationTimestamp"]))
        .unwrap_or(Timestamp::UNIX_EPOCH);
    if with_deadline && let Some(deadline) = cron_job["spec"]["startingDeadlineSeconds"].as_i64() {
        let limit = now
            .saturating_sub(SignedDuration::from_secs(deadline))
            .unwrap_or(now);
        if limit > earliest {
            earliest = limit;
        }
    }
    let none = |missed| Recent {
        earliest,
        most_recent: None,
        missed,
    };
    let never = || {
        (
            earliest,
            "time difference between two schedules is less than 1 second".to_owned(),
        )
    };
    let t1 = schedule.next(earliest).ok_or_else(never)?;
    let t2 = schedule.next(t1).ok_or_else(never)?;
    if now < t1 {
        return Ok(none(Missed::None));
    }
    if now < t2 {
        return Ok(Recent {
            earliest,
            most_recent: Some(t1),
            missed: Missed::None,
        });
    }
    // The gap between two runs, rounded to whole seconds.
    let between = t2.duration_since(t1);
    let gap = between.as_secs() + i64::from(between.subsec_nanos() >= 500_000_000);
    if gap < 1 {
        return Err(never());
    }
    let elapsed = now.duration_since(t1).as_secs();
    let missed_count = elapsed / gap + 1;
    // From a little before the last one that fits, step to the most recent.
    let start = t1
        .checked_add(SignedDuration::from_secs((missed_count - 2) * gap))
        .unwrap_or(t1);
    let mut most_recent = None;
    let mut t = schedule.next(start);
    while let Some(at) = t.filter(|at| *at <= now) {
        most_recent = Some(at);
        t = schedule.next(at);
    }
    let missed = if missed_count > MANY_MISSED {
        Missed::Many
    } else {
        Missed::Few
    };
    Ok(Recent {
        earliest,
        most_recent,
        missed,
    })
}

/// `nextScheduleTimeDuration`: when to sync again — the schedule after the most recent
/// one (after now when that cannot be told), plus 100 ms. `None` when it never fires.
pub(super) fn next_sync(
    cron_job: &Value,
    now: Timestamp,
    schedule: &Schedule,
) -> Option<Timestamp> {
    let base = match most_recent(cron_job, now, schedule, false) {
        Err(_) => now,
        Ok(Recent {
            most_recent: Some(t),
            ..
        }) => t,
        Ok(Recent {
            earliest,
            missed: Missed::None,
            ..
        }) => earliest,
        Ok(_) => now,
    };
    schedule.next(base)?.checked_add(NEXT_SCHEDULE_DELTA).ok()
}

/// The name of the Job for a scheduled time: `<cronjob>-<minutes since the epoch>`.
pub(super) fn job_name(cron_job: &str, scheduled: Timestamp) -> String {
    format!("{cron_job}-{}", scheduled.as_second().div_euclid(60))
}

/// The scheduled time as the `batch.kubernetes.io/cronjob-scheduled-timestamp` annotation
/// writes it: RFC 3339 in the CronJob's `timeZone`.
pub(super) fn scheduled_stamp(cron_job: &Value, scheduled: Timestamp) -> String {
    let zone = cron_job["spec"]["timeZone"].as_str().unwrap_or("");
    let zone = cron::load_location(zone).unwrap_or(jiff::tz::TimeZone::UTC);
    let zoned = scheduled.to_zoned(zone);
    if zoned.offset().seconds() == 0 {
        zoned.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
    } else {
        zoned.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string()
    }
}

/// A time as the API writes it.
pub(super) fn stamp(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn the_most_recent_schedule_is_the_last_one_not_after_now() {
        let every = cron::parse_standard("* * * * *").unwrap();
        let cj = json!({"metadata": {"creationTimestamp": "2026-11-28T08:04:51Z"}, "spec": {}, "status": {}});
        let r = most_recent(&cj, at("2026-11-28T08:04:59Z"), &every, true).unwrap();
        assert_eq!((r.most_recent, r.missed), (None, Missed::None));
        let r = most_recent(&cj, at("2026-11-28T08:05:00.1Z"), &every, true).unwrap();
        assert_eq!(r.most_recent, Some(at("2026-11-28T08:05:00Z")));
        let r = most_recent(&cj, at("2026-11-28T08:09:30Z"), &every, true).unwrap();
        assert_eq!(
            (r.most_recent, r.missed),
            (Some(at("2026-11-28T08:09:00Z")), Missed::Few)
        );
        assert_eq!(
            next_sync(&cj, at("2026-11-28T08:04:55Z"), &every),
            Some(at("2026-11-28T08:05:00.1Z"))
        );
        let late = json!({"metadata": {"creationTimestamp": "2026-11-28T05:00:00Z"}, "spec": {}, "status": {}});
        let r = most_recent(&late, at("2026-11-28T08:08:16Z"), &every, true).unwrap();
        assert_eq!(
            (r.most_recent, r.missed),
            (Some(at("2026-11-28T08:08:00Z")), Missed::Many)
        );
        assert_eq!(
            job_name("every", at("2026-11-28T08:05:00Z")),
            "every-29930885"
        );
        let tokyo = json!({"spec": {"timeZone": "Asia/Tokyo"}});
        assert_eq!(
            scheduled_stamp(&tokyo, at("2026-11-28T08:08:00Z")),
            "2026-11-28T17:08:00+09:00"
        );
        assert_eq!(
            scheduled_stamp(&cj, at("2026-11-28T08:05:00Z")),
            "2026-11-28T08:05:00Z"
        );
    }
}
