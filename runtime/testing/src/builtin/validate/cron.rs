//! A CronJob's schedule as robfig/cron's `ParseStandard` reads it (five fields or a
//! `@descriptor`, an optional `TZ=`/`CRON_TZ=` prefix), with its error messages, and its
//! `timeZone` as Go's `time.LoadLocation` reads it.

use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp, Zoned};

use kubegen_runtime::validation::{BadValue, FieldError};

/// A parsed schedule, as robfig/cron's `Schedule`: when it next fires after a time.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Schedule {
    /// Five fields (or a descriptor such as `@daily`): robfig/cron's `SpecSchedule`, its
    /// seconds always 0. Bit `n` of a field is set when the field allows `n`; [`STAR`]
    /// marks a field written as `*` or `?`.
    Spec {
        minute: u64,
        hour: u64,
        dom: u64,
        month: u64,
        dow: u64,
        /// The schedule's zone (`TZ=`), UTC without one (the controller-manager's local zone).
        zone: TimeZone,
    },
    /// `@every <duration>`: robfig/cron's `ConstantDelaySchedule`, whole seconds.
    Every { seconds: i64 },
}

/// robfig/cron's `starBit`.
const STAR: u64 = 1 << 63;

impl Schedule {
    /// `Schedule.Next(t)`: the first time after `t` (whole seconds) the schedule fires,
    /// evaluated in its zone; `None` (Go's zero time) when nothing matches within five
    /// years.
    pub(crate) fn next(&self, t: Timestamp) -> Option<Timestamp> {
        match self {
            Schedule::Every { seconds } => {
                let whole = Timestamp::from_second(t.as_second()).ok()?;
                whole.checked_add(SignedDuration::from_secs(*seconds)).ok()
            }
            Schedule::Spec {
                minute,
                hour,
                dom,
                month,
                dow,
                zone,
            } => {
                let spec = Fields {
                    minute: *minute,
                    hour: *hour,
                    dom: *dom,
                    month: *month,
                    dow: *dow,
                };
                spec.next(t, zone)
            }
        }
    }
}

/// The fields of a `SpecSchedule`.
struct Fields {
    minute: u64,
    hour: u64,
    dom: u64,
    month: u64,
    dow: u64,
}

impl Fields {
    /// robfig/cron's `SpecSchedule.Next`, step by step: the month, then the day, hour and
    /// minute, starting over when one of them wraps.
    fn next(&self, t: Timestamp, zone: &TimeZone) -> Option<Timestamp> {
        let has = |bits: u64, n: i8| bits & (1 << n) != 0;
        // The earliest possible time: the coming second.
        let start = Timestamp::from_second(t.as_second().checked_add(1)?).ok()?;
        let mut t = start.to_zoned(zone.clone());
        let year_limit = t.year() + 5;
        let mut added = false;
        'wrap: loop {
            if t.year() > year_limit {
                return None;
            }
            while !has(self.month, t.month()) {
                if !added {
                    added = true;
                    t = go_date(zone, t.year(), t.month(), 1, 0, 0, 0)?;
                }
                t = go_date(
                    zone,
                    t.year(),
                    t.month() + 1,
                    t.day(),
                    t.hour(),
                    t.minute(),
                    t.second(),
                )?;
                if t.month() == 1 {
                    continue 'wrap;
                }
            }
            while !self.day_matches(&t) {
                if !added {
                    added = true;
                    t = go_date(zone, t.year(), t.month(), t.day(), 0, 0, 0)?;
                }
                t = go_date(
                    zone,
                    t.year(),
                    t.month(),
                    t.day() + 1,
                    t.hour(),
                    t.minute(),
                    t.second(),
                )?;
                // A day that does not start at midnight (a DST change) is moved to it.
                let h = i64::from(t.hour());
                if h != 0 {
                    let shift = if h > 12 { 24 - h } else { -h };
                    t = t.checked_add(SignedDuration::from_hours(shift)).ok()?;
                }
                if t.day() == 1 {
                    continue 'wrap;
                }
            }
            while !has(self.hour, t.hour()) {
                if !added {
                    added = true;
                    t = go_date(zone, t.year(), t.month(), t.day(), t.hour(), 0, 0)?;
                }
                t = t.checked_add(SignedDuration::from_hours(1)).ok()?;
                if t.hour() == 0 {
                    continue 'wrap;
                }
            }
            while !has(self.minute, t.minute()) {
                if !added {
                    added = true;
                    t = truncate(&t, 60)?;
                }
                t = t.checked_add(SignedDuration::from_mins(1)).ok()?;
                if t.minute() == 0 {
                    continue 'wrap;
                }
            }
            // Seconds: only 0.
            while t.second() != 0 {
                if !added {
                    added = true;
                }
                t = t.checked_add(SignedDuration::from_secs(1)).ok()?;
                if t.second() == 0 {
                    continue 'wrap;
                }
            }
            return Some(t.timestamp());
        }
    }

    /// `dayMatches`: with both day fields restricted, either matches; else both must.
    fn day_matches(&self, t: &Zoned) -> bool {
        let dom = self.dom & (1 << t.day()) != 0;
        let dow = self.dow & (1 << t.weekday().to_sunday_zero_offset()) != 0;
        if self.dom & STAR != 0 || self.dow & STAR != 0 {
            dom && dow
        } else {
            dom || dow
        }
    }
}

/// Go's `time.Date(year, month, day, hour, min, sec, 0, zone)`: a month or day past its
/// end carries over, as Go normalizes them.
fn go_date(
    zone: &TimeZone,
    year: i16,
    month: i8,
    day: i8,
    hour: i8,
    minute: i8,
    second: i8,
) -> Option<Zoned> {
    let months = i64::from(year) * 12 + i64::from(month) - 1;
    let year = i16::try_from(months.div_euclid(12)).ok()?;
    let month = (months.rem_euclid(12) + 1) as i8;
    let first = jiff::civil::Date::new(year, month, 1).ok()?;
    let date = first
        .checked_add(jiff::Span::new().days(i64::from(day) - 1))
        .ok()?;
    let time = jiff::civil::Time::new(hour, minute, second, 0).ok()?;
    date.to_datetime(time).to_zoned(zone.clone()).ok()
}

/// `t.Truncate(seconds)` (of absolute time, as Go's).
fn truncate(t: &Zoned, seconds: i64) -> Option<Zoned> {
    let s = t.timestamp().as_second();
    Timestamp::from_second(s - s.rem_euclid(seconds))
        .ok()
        .map(|ts| ts.to_zoned(t.time_zone().clone()))
}

/// `cron.ParseStandard(spec)`: `Err` with robfig/cron's message.
pub(crate) fn parse_standard(spec: &str) -> Result<Schedule, String> {
    if spec.is_empty() {
        return Err("empty spec string".into());
    }
    let mut spec = spec;
    let mut zone = TimeZone::UTC;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let end = spec.find(' ').unwrap_or(spec.len());
        let (_, name) = spec[..end].split_once('=').unwrap_or(("", ""));
        zone = load_location(name)
            .map_err(|_| format!("provided bad location {name}: unknown time zone {name}"))?;
        spec = spec[end..].trim();
    }
    if let Some(descriptor) = spec.strip_prefix('@') {
        return descriptor_schedule(descriptor, spec, zone);
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(format!(
            "expected exactly 5 fields, found {}: [{}]",
            fields.len(),
            fields.join(" ")
        ));
    }
    const BOUNDS: [(i64, i64, &[&str]); 5] = [
        (0, 59, &[]),
        (0, 23, &[]),
        (1, 31, &[]),
        (
            1,
            12,
            &[
                "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
            ],
        ),
        (0, 6, &["sun", "mon", "tue", "wed", "thu", "fri", "sat"]),
    ];
    let mut bits = [0u64; 5];
    for ((field, (min, max, names)), out) in fields.iter().zip(BOUNDS).zip(&mut bits) {
        for range in field.split(',') {
            *out |= parse_range(range, min, max, names)?;
        }
    }
    Ok(spec_schedule(bits, zone))
}

/// A `SpecSchedule` of the bits of its fields, minute to day of the week.
fn spec_schedule([minute, hour, dom, month, dow]: [u64; 5], zone: TimeZone) -> Schedule {
    Schedule::Spec {
        minute,
        hour,
        dom,
        month,
        dow,
        zone,
    }
}

/// `parseDescriptor`.
fn descriptor_schedule(descriptor: &str, spec: &str, zone: TimeZone) -> Result<Schedule, String> {
    let all = |min: i64, max: i64| bits(min, max, 1) | STAR;
    let (minute, hour, dom, month, dow) = match descriptor {
        "yearly" | "annually" => (1, 1, 1 << 1, 1 << 1, all(0, 6)),
        "monthly" => (1, 1, 1 << 1, all(1, 12), all(0, 6)),
        "weekly" => (1, 1, all(1, 31), all(1, 12), 1),
        "daily" | "midnight" => (1, 1, all(1, 31), all(1, 12), all(0, 6)),
        "hourly" => (1, all(0, 23), all(1, 31), all(1, 12), all(0, 6)),
        d if d.starts_with("every ") => {
            let duration = &d["every ".len()..];
            let nanos = crate::duration::parse(duration.as_bytes())
                .map_err(|e| format!("failed to parse duration {spec}: {e}"))?;
            // `cron.Every`: at least a second, whole seconds.
            return Ok(Schedule::Every {
                seconds: (nanos / 1_000_000_000).max(1),
            });
        }
        _ => return Err(format!("unrecognized descriptor: {spec}")),
    };
    Ok(spec_schedule([minute, hour, dom, month, dow], zone))
}

/// robfig/cron's `getRange`: the bits `expr` allows.
fn parse_range(expr: &str, min: i64, max: i64, names: &[&str]) -> Result<u64, String> {
    let parts: Vec<&str> = expr.split('/').collect();
    let low_high: Vec<&str> = parts[0].split('-').collect();
    let star = low_high[0] == "*" || low_high[0] == "?";
    let (start, mut end) = if star {
        (min, max)
    } else {
        let start = parse_value(low_high[0], min, names)?;
        let end = match low_high.len() {
            1 => start,
            2 => parse_value(low_high[1], min, names)?,
            _ => return Err(format!("too many hyphens: {expr}")),
        };
        (start, end)
    };
    let mut extra = if star { STAR } else { 0 };
    let step = match parts.len() {
        1 => 1,
        2 => {
            let step = parse_int(parts[1])?;
            // `N/step` means `N-max/step`.
            if low_high.len() == 1 {
                end = max;
            }
            if step > 1 {
                extra = 0;
            }
            step
        }
        _ => return Err(format!("too many slashes: {expr}")),
    };
    if start < min {
        return Err(format!(
            "beginning of range ({start}) below minimum ({min}): {expr}"
        ));
    }
    if end > max {
        return Err(format!(
            "end of range ({end}) above maximum ({max}): {expr}"
        ));
    }
    if start > end {
        return Err(format!(
            "beginning of range ({start}) beyond end of range ({end}): {expr}"
        ));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr}"));
    }
    Ok(bits(start, end, step) | extra)
}

/// `getBits`: every `step`th value from `min` to `max`.
fn bits(min: i64, max: i64, step: i64) -> u64 {
    (min..=max)
        .step_by(step as usize)
        .fold(0, |bits, n| bits | 1 << n)
}

fn parse_value(s: &str, min: i64, names: &[&str]) -> Result<i64, String> {
    let lower = s.to_lowercase();
    if let Some(i) = names.iter().position(|n| *n == lower) {
        return Ok(i as i64 + min);
    }
    parse_int(s)
}

/// `mustParseInt`.
fn parse_int(s: &str) -> Result<i64, String> {
    match s.parse::<i64>() {
        Ok(n) if n < 0 => Err(format!("negative number ({n}) not allowed: {s}")),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "failed to parse int from {s}: strconv.Atoi: parsing {}: invalid syntax",
            kubegen_core::go_print::marshal(&serde_json::Value::String(s.to_owned()))
        )),
    }
}

/// `time.LoadLocation(name)`: the zone (`Local` is the controller-manager's, UTC), or
/// Go's message.
pub(crate) fn load_location(name: &str) -> Result<TimeZone, String> {
    if name.is_empty() || name == "UTC" || name == "Local" {
        return Ok(TimeZone::UTC);
    }
    if name.contains("..") || name.starts_with('/') || name.starts_with('\\') {
        return Err("time: invalid location name".into());
    }
    jiff::tz::db()
        .get(name)
        .map_err(|_| format!("unknown time zone {name}"))
}

/// `validateTimeZone` of a set `timeZone` at `path`.
pub(super) fn time_zone(zone: &str, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if zone.is_empty() {
        errs.push(FieldError::invalid(
            path,
            BadValue::str(zone),
            "unknown time zone",
        ));
        return errs;
    }
    if let Err(e) = load_location(zone) {
        errs.push(FieldError::invalid(path, BadValue::str(zone), e));
    }
    if zone.eq_ignore_ascii_case("local") {
        errs.push(FieldError::invalid(
            path,
            BadValue::str(zone),
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_parse_like_robfig_cron() {
        assert!(parse_standard("* * * * *").is_ok());
        assert!(parse_standard("*/5 0-23 1,15 jan-dec mon-fri").is_ok());
        assert!(parse_standard("@hourly").is_ok());
        assert!(parse_standard("TZ=UTC * * * * *").is_ok());
        assert_eq!(
            parse_standard("not a schedule").unwrap_err(),
            "expected exactly 5 fields, found 3: [not a schedule]"
        );
        assert_eq!(
            parse_standard("60 * * * *").unwrap_err(),
            "end of range (60) above maximum (59): 60"
        );
        assert_eq!(
            parse_standard("x * * * *").unwrap_err(),
            "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"
        );
        assert_eq!(time_zone("Europe/Berlin", "z"), Vec::new());
        assert_eq!(
            time_zone("Mars/Olympus", "z")[0].body(),
            "Invalid value: \"Mars/Olympus\": unknown time zone Mars/Olympus"
        );
    }

    #[test]
    fn next_follows_robfig_cron() {
        let next = |spec: &str, after: &str| {
            parse_standard(spec)
                .unwrap()
                .next(after.parse().unwrap())
                .map(|t| t.to_string())
        };
        let at = |s: &str| Some(s.to_owned());
        assert_eq!(
            next("* * * * *", "2026-11-28T08:04:51Z"),
            at("2026-11-28T08:05:00Z")
        );
        assert_eq!(
            next("* * * * *", "2026-11-28T08:05:00Z"),
            at("2026-11-28T08:06:00Z")
        );
        assert_eq!(
            next("*/15 * * * *", "2026-11-28T08:46:00Z"),
            at("2026-11-28T09:00:00Z")
        );
        assert_eq!(
            next("0 0 * * *", "2026-11-28T09:00:00Z"),
            at("2026-11-29T00:00:00Z")
        );
        assert_eq!(
            next("@monthly", "2026-12-15T00:00:00Z"),
            at("2027-01-01T00:00:00Z")
        );
        // Both day fields restricted: either day matches (Monday the 30th first).
        assert_eq!(
            next("0 0 1 * mon", "2026-11-28T08:00:00Z"),
            at("2026-11-30T00:00:00Z")
        );
        // One restricted: both must (the first Monday that is the 1st).
        assert_eq!(
            next("0 0 1 * *", "2026-11-28T08:00:00Z"),
            at("2026-12-01T00:00:00Z")
        );
        assert_eq!(
            next("0 0 * 2 mon", "2026-11-28T08:00:00Z"),
            at("2027-02-01T00:00:00Z")
        );
        // In the schedule's zone: 01:00 in Tokyo is 16:00 UTC.
        assert_eq!(
            next("TZ=Asia/Tokyo 0 1 * * *", "2026-11-28T09:00:00Z"),
            at("2026-11-28T16:00:00Z")
        );
        // 02:30 does not exist in New York on 2026-03-08: the next day's.
        assert_eq!(
            next(
                "CRON_TZ=America/New_York 30 2 * * *",
                "2026-03-08T05:00:00Z"
            ),
            at("2026-03-09T06:30:00Z")
        );
        assert_eq!(
            next("@every 90s", "2026-11-28T08:00:00.5Z"),
            at("2026-11-28T08:01:30Z")
        );
        assert_eq!(next("0 0 31 2 *", "2026-11-28T08:00:00Z"), None);
        assert_eq!(
            parse_standard("@every x").unwrap_err(),
            "failed to parse duration @every x: time: invalid duration \"x\""
        );
    }
}
