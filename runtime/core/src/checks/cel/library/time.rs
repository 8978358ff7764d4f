//! Timestamp getters as cel-go has them: in UTC by default (the apiserver's environment sets
//! `DefaultUTCTimeZone`), or in the time zone given as an IANA name (`'America/New_York'`,
//! read from the tz database as Go's `time.LoadLocation` reads it) or as an offset
//! (`'+05:30'`), with Go's errors for a zone it cannot read. The cel crate ignores the zone
//! argument. Durations' getters stay the cel crate's.

use chrono::{DateTime, Datelike, FixedOffset, Timelike};
use kube_cel::cel::extractors::{Arguments, This};
use kube_cel::cel::{Context, ExecutionError, ResolveResult, Value};

use super::{fail, kube_cel};
use crate::go_print::quote;

/// The getters and what each reads from a date and time in the zone.
type Getter = fn(&DateTime<FixedOffset>) -> i64;

const GETTERS: &[(&str, Getter)] = &[
    ("getFullYear", |t| i64::from(t.year())),
    ("getMonth", |t| i64::from(t.month0())),
    ("getDayOfYear", |t| i64::from(t.ordinal0())),
    ("getDayOfMonth", |t| i64::from(t.day0())),
    ("getDate", |t| i64::from(t.day())),
    ("getDayOfWeek", |t| {
        i64::from(t.weekday().num_days_from_sunday())
    }),
    ("getHours", |t| i64::from(t.hour())),
    ("getMinutes", |t| i64::from(t.minute())),
    ("getSeconds", |t| i64::from(t.second())),
    ("getMilliseconds", |t| i64::from(t.nanosecond() / 1_000_000)),
];

pub(super) fn register(ctx: &mut Context<'static>) {
    for &(name, get) in GETTERS {
        ctx.add_function(
            name,
            move |This(this): This<Value>, Arguments(args): Arguments| -> ResolveResult {
                let Value::Timestamp(t) = &this else {
                    return kube_cel(name, Some(this), &args);
                };
                let offset = match args.as_slice() {
                    [] => 0,
                    [Value::String(zone)] => zone_offset(zone, t).map_err(|e| fail(name, e))?,
                    _ => return Err(ExecutionError::NoSuchOverload),
                };
                let zone =
                    FixedOffset::east_opt(offset).ok_or_else(|| fail(name, "invalid offset"))?;
                Ok(Value::Int(get(&t.with_timezone(&zone))))
            },
        );
    }
}

/// The zone's offset from UTC at `t`, in seconds, or Go's error for the zone.
fn zone_offset(zone: &str, t: &DateTime<FixedOffset>) -> Result<i32, String> {
    let Some((hours, minutes)) = zone.split_once(':') else {
        if matches!(zone, "" | "UTC") {
            return Ok(0);
        }
        let tz = jiff::tz::TimeZone::get(zone).map_err(|_| format!("unknown time zone {zone}"))?;
        let instant = jiff::Timestamp::new(t.timestamp(), 0).map_err(|e| e.to_string())?;
        return Ok(tz.to_offset(instant).seconds());
    };
    let hours = atoi(hours)?;
    let minutes = atoi(minutes)?;
    let total = match zone.starts_with('-') {
        true => hours * 60 - minutes,
        false => hours * 60 + minutes,
    };
    i32::try_from(total * 60).map_err(|_| format!("offset out of range: {zone}"))
}

/// `strconv.Atoi`, with its error.
fn atoi(s: &str) -> Result<i64, String> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    let parsed = match digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        true => None,
        false => s.strip_prefix('+').unwrap_or(s).parse().ok(),
    };
    parsed.ok_or_else(|| format!("strconv.Atoi: parsing {}: invalid syntax", quote(s)))
}
