//! The semver library's strict forms (`semver(s)`, `isSemver(s)`) as the apiserver decides
//! them: what Go's blang/semver `Parse` accepts, and its errors (`No Major.Minor.Patch
//! elements found`) where kube-cel's semver crate words them its own way or accepts
//! otherwise. The normalizing forms (`semver(s, true)`) and the methods stay kube-cel's.

use kube_cel::cel::extractors::Arguments;
use kube_cel::cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};

use super::{fail, kube_cel, subject};
use crate::go_print::quote;

pub(super) fn register(ctx: &mut Context<'static>) {
    ctx.add_function(
        "semver",
        |ftx: &FunctionContext, Arguments(args): Arguments| strict("semver", ftx, &args),
    );
    ctx.add_function(
        "isSemver",
        |ftx: &FunctionContext, Arguments(args): Arguments| strict("isSemver", ftx, &args),
    );
}

fn strict(name: &str, ftx: &FunctionContext, args: &[Value]) -> ResolveResult {
    let Value::String(s) = subject(ftx)? else {
        return Err(ExecutionError::NoSuchOverload);
    };
    // `args` holds every argument; one means the strict form.
    if args.len() == 1 {
        let parsed = parse(&s);
        if name == "isSemver" {
            return Ok(Value::Bool(parsed.is_ok()));
        }
        parsed.map_err(|e| fail(name, e))?;
    }
    kube_cel(name, None, args)
}

const NUMBERS: &str = "0123456789";

fn contains_only(s: &str, set: &str) -> bool {
    s.chars().all(|c| set.contains(c))
}

fn leading_zero(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

/// `strconv.ParseUint(s, 10, 64)`'s error for a string of digits.
fn parse_uint(s: &str) -> Result<u64, String> {
    s.parse().map_err(|_| match s.is_empty() {
        true => format!("strconv.ParseUint: parsing {}: invalid syntax", quote(s)),
        false => format!(
            "strconv.ParseUint: parsing {}: value out of range",
            quote(s)
        ),
    })
}

/// A major, minor or patch number.
fn number(s: &str, which: &str, capital: &str) -> Result<(), String> {
    if !contains_only(s, NUMBERS) {
        return Err(format!(
            "Invalid character(s) found in {which} number {}",
            quote(s)
        ));
    }
    if leading_zero(s) {
        return Err(format!(
            "{capital} number must not contain leading zeroes {}",
            quote(s)
        ));
    }
    parse_uint(s).map(|_| ())
}

/// blang/semver's `Parse`: only whether it succeeds, and its error when not.
fn parse(s: &str) -> Result<(), String> {
    const ALPHANUM: &str = "0123456789-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    if s.is_empty() {
        return Err("Version string empty".to_owned());
    }
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    let [major, minor, rest] = parts.as_slice() else {
        return Err("No Major.Minor.Patch elements found".to_owned());
    };
    number(major, "major", "Major")?;
    number(minor, "minor", "Minor")?;
    let (rest, build) = match rest.split_once('+') {
        Some((r, b)) => (r, Some(b)),
        None => (*rest, None),
    };
    let (patch, prerelease) = match rest.split_once('-') {
        Some((p, pre)) => (p, Some(pre)),
        None => (rest, None),
    };
    number(patch, "patch", "Patch")?;
    for part in prerelease.into_iter().flat_map(|p| p.split('.')) {
        if part.is_empty() {
            return Err("Prerelease is empty".to_owned());
        }
        if contains_only(part, NUMBERS) {
            if leading_zero(part) {
                return Err(format!(
                    "Numeric PreRelease version must not contain leading zeroes {}",
                    quote(part)
                ));
            }
            parse_uint(part)?;
        } else if !contains_only(part, ALPHANUM) {
            return Err(format!(
                "Invalid character(s) found in prerelease {}",
                quote(part)
            ));
        }
    }
    for part in build.into_iter().flat_map(|b| b.split('.')) {
        if part.is_empty() {
            return Err("Build meta data is empty".to_owned());
        }
        if !contains_only(part, ALPHANUM) {
            return Err(format!(
                "Invalid character(s) found in build meta data {}",
                quote(part)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn versions_parse_as_blang_semver_parses_them() {
        for ok in ["1.0.0", "0.1.2-alpha.1+build.5", "10.20.30-rc-1"] {
            assert_eq!(parse(ok), Ok(()), "{ok}");
        }
        for (bad, error) in [
            ("", "Version string empty"),
            ("v1.0", "No Major.Minor.Patch elements found"),
            (
                "v1.0.0",
                "Invalid character(s) found in major number \"v1\"",
            ),
            (
                "01.0.0",
                "Major number must not contain leading zeroes \"01\"",
            ),
            (
                "1.0.0-01",
                "Numeric PreRelease version must not contain leading zeroes \"01\"",
            ),
            ("1.0.0+", "Build meta data is empty"),
            ("1..0", "strconv.ParseUint: parsing \"\": invalid syntax"),
        ] {
            assert_eq!(parse(bad), Err(error.to_owned()), "{bad}");
        }
    }
}
