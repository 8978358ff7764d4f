//! A CronJob's schedule as robfig/cron's `ParseStandard` reads it (five fields or a
//! `@descriptor`, an optional `TZ=`/`CRON_TZ=` prefix), with its error messages, and its
//! `timeZone` as Go's `time.LoadLocation` reads it.

use crate::validation::{BadValue, FieldError};

/// `cron.ParseStandard(spec)`: `Err` with robfig/cron's message.
pub(super) fn parse_standard(spec: &str) -> Result<(), String> {
    if spec.is_empty() {
        return Err("empty spec string".into());
    }
    let mut spec = spec;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let end = spec.find(' ').unwrap_or(spec.len());
        let (_, zone) = spec[..end].split_once('=').unwrap_or(("", ""));
        if load_location(zone).is_err() {
            return Err(format!(
                "provided bad location {zone}: unknown time zone {zone}"
            ));
        }
        spec = spec[end..].trim();
    }
    if let Some(descriptor) = spec.strip_prefix('@') {
        return match descriptor {
            "yearly" | "annually" | "monthly" | "weekly" | "daily" | "midnight" | "hourly" => {
                Ok(())
            }
            d if d.starts_with("every ") => Ok(()),
            _ => Err(format!("unrecognized descriptor: {spec}")),
        };
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
    for (field, (min, max, names)) in fields.iter().zip(BOUNDS) {
        for range in field.split(',') {
            parse_range(range, min, max, names)?;
        }
    }
    Ok(())
}

/// robfig/cron's `getRange`.
fn parse_range(expr: &str, min: i64, max: i64, names: &[&str]) -> Result<(), String> {
    let parts: Vec<&str> = expr.split('/').collect();
    let low_high: Vec<&str> = parts[0].split('-').collect();
    let (start, end) = if low_high[0] == "*" || low_high[0] == "?" {
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
    let step = match parts.len() {
        1 => 1,
        2 => {
            let step = parse_int(parts[1])?;
            if low_high.len() == 1 && low_high[0] != "*" && low_high[0] != "?" {
                // `N/step` means `N-max/step`.
                return check(start, max, step, min, max, expr);
            }
            step
        }
        _ => return Err(format!("too many slashes: {expr}")),
    };
    check(start, end, step, min, max, expr)
}

fn check(start: i64, end: i64, step: i64, min: i64, max: i64, expr: &str) -> Result<(), String> {
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
    Ok(())
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
            crate::validation::gofmt::marshal(&serde_json::Value::String(s.to_owned()))
        )),
    }
}

/// `time.LoadLocation(name)`: `Err` with Go's message.
fn load_location(name: &str) -> Result<(), String> {
    if name.is_empty() || name == "UTC" || name == "Local" {
        return Ok(());
    }
    if name.contains("..") || name.starts_with('/') || name.starts_with('\\') {
        return Err("time: invalid location name".into());
    }
    match jiff::tz::db().get(name) {
        Ok(_) => Ok(()),
        Err(_) => Err(format!("unknown time zone {name}")),
    }
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
        assert_eq!(parse_standard("* * * * *"), Ok(()));
        assert_eq!(parse_standard("*/5 0-23 1,15 jan-dec mon-fri"), Ok(()));
        assert_eq!(parse_standard("@hourly"), Ok(()));
        assert_eq!(parse_standard("TZ=UTC * * * * *"), Ok(()));
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
}
