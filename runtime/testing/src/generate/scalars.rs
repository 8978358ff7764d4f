//! Scalars: strings (formats, patterns, lengths), integers and numbers (bounds, exclusive
//! bounds, `multipleOf`, format widths).

use rand::RngExt;
use rand::seq::IndexedRandom;
use serde_json::{Map, Number, Value, json};

use super::GenerateError;
use super::formats;
use super::junctors::EXTRA_PATTERNS;
use super::value::{Walk, err, flag};

/// How often a string is drawn before the generator gives up on its constraints.
const STRING_TRIES: u32 = 60;

impl Walk<'_> {
    pub(super) fn string(
        &mut self,
        node: &Map<String, Value>,
        path: &str,
    ) -> Result<Value, GenerateError> {
        let min = node.get("minLength").and_then(Value::as_u64).unwrap_or(0);
        let max = node.get("maxLength").and_then(Value::as_u64);
        let format = node.get("format").and_then(Value::as_str);
        let mut patterns: Vec<&str> = Vec::new();
        if let Some(p) = node.get("pattern").and_then(Value::as_str) {
            patterns.push(p);
        }
        if let Some(Value::Array(more)) = node.get(EXTRA_PATTERNS) {
            patterns.extend(more.iter().filter_map(Value::as_str));
        }
        let mut last = String::from("no candidate");
        for attempt in 0..STRING_TRIES {
            let from_format = format.and_then(|f| formats::generate(f, &mut self.rng));
            let candidate = match (from_format, patterns.first()) {
                (Some(s), _) => s,
                (None, Some(p)) => {
                    let filler = self.free_string(0, 3);
                    let pattern = self.patterns.get(p).map_err(|e| err(path, e))?;
                    pattern.candidate(&mut self.rng, min, &filler)
                }
                (None, None) => {
                    let upper = max.unwrap_or(min + if attempt % 4 == 0 { 64 } else { 12 });
                    self.free_string(min, upper)
                }
            };
            let len = candidate.chars().count() as u64;
            if len < min || max.is_some_and(|m| len > m) {
                last = format!("{candidate:?} has {len} characters, not {min}..{max:?}");
                continue;
            }
            let mut matches = true;
            for p in &patterns {
                let pattern = self.patterns.get(p).map_err(|e| err(path, e))?;
                if !pattern.is_match(&candidate) {
                    last = format!("{candidate:?} does not match {p:?}");
                    matches = false;
                    break;
                }
            }
            if matches {
                return Ok(Value::String(candidate));
            }
        }
        Err(err(
            path,
            format!("no string satisfied the format, pattern and length: {last}"),
        ))
    }

    /// A string of `min..=max` characters from a mix of scripts, whitespace and escapes.
    pub(super) fn free_string(&mut self, min: u64, max: u64) -> String {
        const SPECIAL: &[char] = &[
            ' ',
            '"',
            '\\',
            '/',
            '\n',
            '\t',
            '\u{1}',
            '\u{7f}',
            'é',
            'ß',
            '中',
            'ж',
            '€',
            '\u{a0}',
            '\u{200b}',
            '😀',
            '𝄞',
            '\u{10ffff}',
            '<',
            '&',
            '\'',
            '%',
            '$',
            '{',
            '}',
        ];
        let len = if min == max {
            min
        } else if self.rng.random_bool(0.15) {
            if self.rng.random_bool(0.5) { min } else { max }
        } else {
            min + self.rng.random_range(0..=(max - min).min(24))
        };
        let style = self.rng.random_range(0..4u32);
        (0..len)
            .map(|_| match style {
                0 => char::from(b'a' + self.rng.random_range(0..26u8)),
                1 => char::from(self.rng.random_range(0x20..0x7fu8)),
                _ if self.rng.random_bool(0.3) => *SPECIAL.choose(&mut self.rng).unwrap_or(&'x'),
                _ => char::from(self.rng.random_range(0x21..0x7fu8)),
            })
            .collect()
    }

    pub(super) fn integer(
        &mut self,
        node: &Map<String, Value>,
        path: &str,
    ) -> Result<Value, GenerateError> {
        let (mut lo, mut hi) = match node.get("format").and_then(Value::as_str) {
            Some("int32") => (i128::from(i32::MIN), i128::from(i32::MAX)),
            _ => (i128::from(i64::MIN), i128::from(i64::MAX)),
        };
        if let Some(min) = node.get("minimum").and_then(Value::as_f64) {
            let mut m = min.ceil() as i128;
            if flag(node, "exclusiveMinimum") && m as f64 == min {
                m += 1;
            }
            lo = lo.max(m);
        }
        if let Some(max) = node.get("maximum").and_then(Value::as_f64) {
            let mut m = max.floor() as i128;
            if flag(node, "exclusiveMaximum") && m as f64 == max {
                m -= 1;
            }
            hi = hi.min(m);
        }
        let step = node.get("multipleOf").and_then(Value::as_f64);
        let (lo, hi, scale) = match step {
            Some(s) if s.fract() == 0.0 && s >= 1.0 => {
                let s = s as i128;
                (
                    lo.div_euclid(s) + i128::from(lo.rem_euclid(s) != 0),
                    hi.div_euclid(s),
                    s,
                )
            }
            _ => (lo, hi, 1),
        };
        if lo > hi {
            return Err(err(path, "no integer within the bounds"));
        }
        let mut n = self.pick_int(lo, hi) * scale;
        if let Some(s) = step.filter(|_| scale == 1) {
            // A fractional step: keep to multiples the apiserver's float check confirms.
            match (0..20)
                .map(|_| self.pick_int(lo.max(-(1 << 40)), hi.min(1 << 40)))
                .find(|&v| is_multiple(v as f64, s))
            {
                Some(v) => n = v,
                None => return Err(err(path, format!("cannot generate multiples of {s}"))),
            }
        }
        Ok(i64::try_from(n)
            .map(Value::from)
            .unwrap_or_else(|_| Value::from(n as u64)))
    }

    /// An integer in `lo..=hi`: a boundary or a small value often, any magnitude otherwise.
    pub(super) fn pick_int(&mut self, lo: i128, hi: i128) -> i128 {
        let specials = [lo, hi, lo + 1, hi - 1, 0, 1, -1, 2];
        if self.rng.random_bool(0.35) {
            let candidates: Vec<i128> = specials
                .into_iter()
                .filter(|v| (lo..=hi).contains(v))
                .collect();
            if let Some(v) = candidates.choose(&mut self.rng) {
                return *v;
            }
        }
        let bits = self.rng.random_range(0..64u32);
        let magnitude = i128::from(self.rng.random::<u64>() >> (63 - bits) >> 1);
        let span = hi - lo + 1;
        let sign = if self.rng.random_bool(0.5) { 1 } else { -1 };
        let v = sign * magnitude;
        if (lo..=hi).contains(&v) {
            v
        } else {
            lo + magnitude.rem_euclid(span)
        }
    }

    pub(super) fn number(
        &mut self,
        node: &Map<String, Value>,
        path: &str,
    ) -> Result<Value, GenerateError> {
        let limit = match node.get("format").and_then(Value::as_str) {
            Some("float") => f64::from(f32::MAX),
            _ => f64::MAX,
        };
        let (mut lo, mut hi) = (-limit, limit);
        if let Some(min) = node.get("minimum").and_then(Value::as_f64) {
            lo = lo.max(if flag(node, "exclusiveMinimum") {
                min.next_up()
            } else {
                min
            });
        }
        if let Some(max) = node.get("maximum").and_then(Value::as_f64) {
            hi = hi.min(if flag(node, "exclusiveMaximum") {
                max.next_down()
            } else {
                max
            });
        }
        if lo > hi {
            return Err(err(path, "no number within the bounds"));
        }
        if let Some(step) = node.get("multipleOf").and_then(Value::as_f64) {
            let (klo, khi) = ((lo / step).ceil(), (hi / step).floor());
            let (klo, khi) = (klo.max(-1e12) as i128, khi.min(1e12) as i128);
            for _ in 0..20 {
                if klo > khi {
                    break;
                }
                let v = self.pick_int(klo, khi) as f64 * step;
                if is_multiple(v, step) && v >= lo && v <= hi {
                    return Ok(json!(v));
                }
            }
            return Err(err(path, format!("cannot generate multiples of {step}")));
        }
        let specials = [
            lo,
            hi,
            0.0,
            -0.5,
            1.0,
            0.1,
            1e-300,
            f64::from(f32::MIN_POSITIVE),
            1e300,
            -1e300,
            123456.789,
        ];
        let v = if self.rng.random_bool(0.4) {
            let candidates: Vec<f64> = specials
                .into_iter()
                .filter(|v| *v >= lo && *v <= hi)
                .collect();
            *candidates.choose(&mut self.rng).unwrap_or(&lo)
        } else {
            let exponent = self.rng.random_range(-20..20i32);
            let v = (self.rng.random::<f64>() - 0.5) * 10f64.powi(exponent);
            if v >= lo && v <= hi {
                v
            } else if hi - lo < f64::MAX && (hi - lo).is_finite() {
                lo + self.rng.random::<f64>() * (hi - lo)
            } else {
                lo.max(0.0).min(hi)
            }
        };
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| err(path, "the bounds allow no finite number"))
    }
}

/// kube-openapi's `MultipleOf` for floats: the quotient (computed as it computes it) must
/// be an integer a JSON number holds exactly.
fn is_multiple(v: f64, factor: f64) -> bool {
    let quotient = if factor < 1.0 {
        1.0 / factor * v
    } else {
        v / factor
    };
    quotient.fract() == 0.0 && quotient.abs() <= 9_007_199_254_740_992.0
}
