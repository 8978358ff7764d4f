//! Strings with a format become CEL timestamps, durations and bytes, parsed as kube-openapi's
//! `strfmt` parses them (`ParseDateTime`, `ParseDuration`, `time.Parse("2006-01-02")`,
//! base64 `StdEncoding`).

use base64::Engine as _;
use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, TimeZone, Utc};

use super::super::formats::{duration_nanos, parse_date};

/// A `date-time`: RFC 3339 with or without a fraction, or a local time read as UTC; the
/// empty string is the Unix epoch (strfmt's zero `DateTime`).
pub(super) fn date_time(s: &str) -> Option<DateTime<FixedOffset>> {
    if s.is_empty() {
        return Some(Utc.timestamp_opt(0, 0).single()?.fixed_offset());
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t);
    }
    NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S")
        .ok()
        .map(|t| t.and_utc().fixed_offset())
}

/// A `date`: midnight UTC of that day.
pub(super) fn date(s: &str) -> Option<DateTime<FixedOffset>> {
    let (year, month, day) = parse_date(s)?;
    let date = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?;
    Some(date.and_hms_opt(0, 0, 0)?.and_utc().fixed_offset())
}

/// A `duration`, in Go's syntax or strfmt's fallback (`3 days`).
pub(super) fn duration(s: &str) -> Option<chrono::Duration> {
    duration_nanos(s).map(chrono::Duration::nanoseconds)
}

/// A `byte` string: standard base64.
pub(super) fn bytes(s: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(s).ok()
}
