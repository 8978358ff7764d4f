//! `metav1.Time` as Go reads and writes it: `time.Parse(time.RFC3339, s)`, with Go's error
//! wording, and `t.UTC().Format(time.RFC3339)` (whole seconds) on the way out.

use k8s_openapi::jiff::Timestamp;
use k8s_openapi::jiff::civil::DateTime;
use k8s_openapi::jiff::tz::Offset;

const LAYOUT: &str = "2006-01-02T15:04:05Z07:00";
/// `metav1.MicroTime`'s layout (`RFC3339Micro`).
const LAYOUT_MICRO: &str = "2006-01-02T15:04:05.000000Z07:00";

/// The time `value` names, written back as the apiserver writes it, or Go's parse error.
pub(crate) fn parse_rfc3339(value: &str) -> Result<String, String> {
    parse(value, false)
}

/// A `metav1.MicroTime`: `time.Parse(RFC3339Micro, s)`, which needs exactly six fractional
/// digits, written back in UTC with six digits.
#[doc(hidden)] // for the in-memory server
pub fn parse_rfc3339_micro(value: &str) -> Result<String, String> {
    parse(value, true)
}

fn parse(value: &str, micro: bool) -> Result<String, String> {
    let layout = if micro { LAYOUT_MICRO } else { LAYOUT };
    let cannot = |rest: &str, element: &str| {
        format!("parsing time {value:?} as {layout:?}: cannot parse {rest:?} as {element:?}")
    };
    let out_of_range = |what: &str| format!("parsing time {value:?}: {what} out of range");
    let mut rest = value;
    let number = |rest: &mut &str, digits: usize, element: &str| -> Result<i64, String> {
        let head: String = rest.chars().take(digits).collect();
        if head.len() != digits || !head.bytes().all(|b| b.is_ascii_digit()) {
            return Err(cannot(rest, element));
        }
        *rest = &rest[digits..];
        head.parse::<i64>().map_err(|_| cannot(rest, element))
    };
    let literal = |rest: &mut &str, lit: &str| -> Result<(), String> {
        match rest.strip_prefix(lit) {
            Some(r) => {
                *rest = r;
                Ok(())
            }
            None => Err(cannot(rest, lit)),
        }
    };
    let year = number(&mut rest, 4, "2006")?;
    literal(&mut rest, "-")?;
    let month = number(&mut rest, 2, "01")?;
    literal(&mut rest, "-")?;
    let day = number(&mut rest, 2, "02")?;
    literal(&mut rest, "T")?;
    let hour = number(&mut rest, 2, "15")?;
    literal(&mut rest, ":")?;
    let minute = number(&mut rest, 2, "04")?;
    literal(&mut rest, ":")?;
    let second = number(&mut rest, 2, "05")?;
    let mut nanos = 0i32;
    if micro {
        // The layout's `.000000` takes exactly six digits.
        let digits = rest
            .get(1..7)
            .filter(|d| d.bytes().all(|b| b.is_ascii_digit()));
        match (rest.as_bytes().first(), digits) {
            (Some(b'.'), Some(d)) => {
                nanos = d.parse::<i32>().unwrap_or(0) * 1000;
                rest = &rest[7..];
            }
            _ => return Err(cannot(rest, ".000000")),
        }
    } else if let Some(r) = rest.strip_prefix('.').or_else(|| rest.strip_prefix(',')) {
        // Go accepts a fraction after the seconds even when the layout has none.
        let digits = r.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(cannot(rest, "Z07:00"));
        }
        rest = &r[digits..];
    }
    let offset_seconds = if let Some(r) = rest.strip_prefix('Z') {
        rest = r;
        0
    } else {
        let sign = match rest.as_bytes().first() {
            Some(b'+') => 1,
            Some(b'-') => -1,
            _ => return Err(cannot(rest, "Z07:00")),
        };
        let after_sign = &rest[1..];
        let valid = after_sign.len() >= 5
            && after_sign.as_bytes()[2] == b':'
            && after_sign[..2].bytes().all(|b| b.is_ascii_digit())
            && after_sign[3..5].bytes().all(|b| b.is_ascii_digit());
        if !valid {
            return Err(cannot(rest, "Z07:00"));
        }
        let hours: i32 = after_sign[..2].parse().unwrap_or(0);
        let minutes: i32 = after_sign[3..5].parse().unwrap_or(0);
        if hours > 24 {
            return Err(out_of_range("time zone offset hour"));
        }
        if minutes > 60 {
            return Err(out_of_range("time zone offset minute"));
        }
        rest = &after_sign[5..];
        sign * (hours * 3600 + minutes * 60)
    };
    if !rest.is_empty() {
        return Err(format!("parsing time {value:?}: extra text: {rest:?}"));
    }
    if !(1..=12).contains(&month) {
        return Err(out_of_range("month"));
    }
    if hour > 23 {
        return Err(out_of_range("hour"));
    }
    if minute > 59 {
        return Err(out_of_range("minute"));
    }
    if second > 59 {
        return Err(out_of_range("second"));
    }
    let civil = DateTime::new(
        year as i16,
        month as i8,
        day as i8,
        hour as i8,
        minute as i8,
        second as i8,
        nanos,
    )
    .map_err(|_| out_of_range("day"))?;
    let offset =
        Offset::from_seconds(offset_seconds).map_err(|_| out_of_range("time zone offset"))?;
    let instant: Timestamp = civil
        .to_zoned(offset.to_time_zone())
        .map_err(|_| out_of_range("day"))?
        .timestamp();
    Ok(match micro {
        true => instant.strftime("%Y-%m-%dT%H:%M:%S%.6fZ").to_string(),
        false => instant.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::{parse_rfc3339, parse_rfc3339_micro};

    #[test]
    fn reads_and_writes_micro_times_as_go_does() {
        assert_eq!(
            parse_rfc3339_micro("2026-01-01T00:00:00.123456Z").unwrap(),
            "2026-01-01T00:00:00.123456Z"
        );
        assert_eq!(
            parse_rfc3339_micro("2026-01-01T02:00:00.000001+02:00").unwrap(),
            "2026-01-01T00:00:00.000001Z"
        );
        assert_eq!(
            parse_rfc3339_micro("2026-01-01T00:00:00.123Z").unwrap_err(),
            r#"parsing time "2026-01-01T00:00:00.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000""#
        );
        assert_eq!(
            parse_rfc3339_micro("2026-01-01T02:00:00+02:00").unwrap_err(),
            r#"parsing time "2026-01-01T02:00:00+02:00" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "+02:00" as ".000000""#
        );
    }

    #[test]
    fn reads_and_writes_times_as_go_does() {
        assert_eq!(
            parse_rfc3339("2024-01-02T03:04:05.123+01:00").unwrap(),
            "2024-01-02T02:04:05Z"
        );
        assert_eq!(
            parse_rfc3339("2024-01-02T03:04:05Z").unwrap(),
            "2024-01-02T03:04:05Z"
        );
        assert_eq!(
            parse_rfc3339("yesterday").unwrap_err(),
            r#"parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006""#
        );
        assert_eq!(
            parse_rfc3339("2024-01-02").unwrap_err(),
            r#"parsing time "2024-01-02" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T""#
        );
        assert_eq!(
            parse_rfc3339("2024-13-02T00:00:00Z").unwrap_err(),
            r#"parsing time "2024-13-02T00:00:00Z": month out of range"#
        );
    }
}
