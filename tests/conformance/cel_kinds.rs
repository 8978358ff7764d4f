//! The kinds of the CEL library cases (`cases/cel.rs`, `cases/cel_probes.rs`): one field per
//! rule, so that each case's object sets the field of the rule it exercises and leaves the
//! others out, and library corners behind a probe name. Lists, strings and maps are bounded
//! where a rule walks them, as the apiserver's cost estimate requires. Rule semantics and
//! updates are in `cel_rule_kinds.rs`.

use std::collections::BTreeMap;

use kubegen::prelude::*;

/// A short word: list items and map values rules walk over.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[validate(max_length = 16)]
pub struct Word(pub String);

/// Lists: sizes, the macros, the list and set libraries.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "conformance.kubegen.dev", version = "v1", kind = "CelList")]
#[serde(rename_all = "camelCase")]
#[rule(
    "!has(self.allowed) || !has(self.chosen) || sets.contains(self.allowed, self.chosen)",
    message = "chosen must be among allowed"
)]
#[rule(
    "!has(self.left) || !has(self.right) || !sets.intersects(self.left, self.right)",
    message = "left and right must not overlap"
)]
#[rule(
    "!has(self.before) || !has(self.after) || sets.equivalent(self.before, self.after)",
    message = "after must hold the same words as before"
)]
pub struct CelListSpec {
    #[rule("self.size() <= 3", message = "at most three numbers")]
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sized: Option<Vec<i64>>,
    #[rule("self.all(n, n > 0)", message = "numbers must be positive")]
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positive: Option<Vec<i64>>,
    #[rule("self.exists(n, n == 0)")]
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub with_zero: Option<Vec<i64>>,
    #[rule("self.exists_one(w, w == 'primary')", message = "exactly one primary")]
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roles: Option<Vec<Word>>,
    #[rule(
        "self.map(n, n * 2).all(d, d < 100)",
        message = "doubled, each stays below 100"
    )]
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doubled: Option<Vec<i64>>,
    #[rule(
        "self.filter(n, n > 10).size() <= 1",
        message = "at most one number above 10"
    )]
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filtered: Option<Vec<i64>>,
    #[rule("self.isSorted()", message = "must be sorted")]
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sorted: Option<Vec<i64>>,
    #[rule("self.sum() <= 10", message_expression = "string(self.sum())")]
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summed: Option<Vec<i64>>,
    #[rule("self.min() >= 0 && self.max() <= 9", message = "digits only")]
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digits: Option<Vec<i64>>,
    #[rule(
        "self.indexOf('x') == self.lastIndexOf('x')",
        message = "x at most once"
    )]
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub letters: Option<Vec<Word>>,
    #[rule("self[0] == 'first'", message = "starts with first")]
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ordered: Option<Vec<Word>>,
    #[rule("sets.contains(self, ['base'])", message = "must include base")]
    #[schema(list_type = "set")]
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layers: Option<Vec<Word>>,
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Vec<Word>>,
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen: Option<Vec<Word>>,
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<Vec<Word>>,
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right: Option<Vec<Word>>,
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Vec<Word>>,
    #[validate(max_items = 10)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Vec<Word>>,
    /// Items with a rule of their own comparing two of their fields.
    #[validate(max_items = 5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranges: Option<Vec<Range>>,
}

/// A nested type with a type-level rule.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[rule("self.low <= self.high", message = "low must not exceed high")]
pub struct Range {
    pub low: i64,
    pub high: i64,
}

/// Maps: key and value rules, membership, lookups, two-variable comprehensions.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "conformance.kubegen.dev", version = "v1", kind = "CelMap")]
#[serde(rename_all = "camelCase")]
pub struct CelMapSpec {
    #[rule("self.all(k, k.startsWith('x-'))", message = "keys start with x-")]
    #[validate(max_properties = 5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefixed: Option<BTreeMap<String, Word>>,
    #[rule("'owner' in self", message = "an owner is required")]
    #[validate(max_properties = 5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owned: Option<BTreeMap<String, Word>>,
    #[rule("self.all(k, self[k] >= 0)", message = "no negative counts")]
    #[validate(max_properties = 5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<BTreeMap<String, i64>>,
    #[rule("self.all(k, v, v < 100)", message = "every limit below 100")]
    #[validate(max_properties = 5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<BTreeMap<String, i64>>,
    #[rule(
        "self.exists(k, v, k == v.lowerAscii())",
        message = "some value repeats its key"
    )]
    #[validate(max_properties = 5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub echoes: Option<BTreeMap<String, Word>>,
    #[rule("self['mode'] == 'on'", message = "mode must be on")]
    #[validate(max_properties = 5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<BTreeMap<String, Word>>,
    #[rule(
        "!has(self.debug) || self.debug == 'off'",
        message = "debug must be off"
    )]
    #[validate(max_properties = 5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<BTreeMap<String, Word>>,
    #[rule("self.size() <= 2", message = "at most two entries")]
    #[validate(max_properties = 5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub small: Option<BTreeMap<String, Word>>,
    /// Map values that are objects, with a rule of their own.
    #[validate(max_properties = 5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranges: Option<BTreeMap<String, Range>>,
}

/// Strings: the string library and regular expressions.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "conformance.kubegen.dev", version = "v1", kind = "CelString")]
#[serde(rename_all = "camelCase")]
#[rule(
    "!has(self.text) || !has(self.pattern) || self.text.matches(self.pattern)",
    message = "text must match pattern"
)]
pub struct CelStringSpec {
    #[rule(
        "self.matches('^[a-z][a-z0-9]*$')",
        message = "lower-case letters and digits"
    )]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slug: Option<String>,
    #[rule("self.startsWith('k-')", message = "starts with k-")]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefixed: Option<String>,
    #[rule("self.endsWith('.io')")]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[rule("self.contains('@')", message = "an address has an @")]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[rule("self.charAt(2) == '-'", message = "a dash third")]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[rule("self.indexOf(':') > 0", message = "a colon after the name")]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair: Option<String>,
    #[rule("self.lowerAscii() == self", message = "lower case")]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lower: Option<String>,
    #[rule("self.upperAscii() == self", message = "upper case")]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upper: Option<String>,
    #[rule("self.replace('_', '-') == self", message = "no underscores")]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dashed: Option<String>,
    #[rule("self.split(',').size() <= 3", message = "at most three items")]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csv: Option<String>,
    #[rule("self.substring(0, 3) == 'env'", message = "starts with env")]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<String>,
    #[rule("self.trim() == self", message = "no surrounding spaces")]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trimmed: Option<String>,
    #[rule("self.size() <= 3", message = "at most three characters")]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short: Option<String>,
    #[rule(
        "self.join('-').size() <= 10",
        message = "joined with dashes, at most 10 characters"
    )]
    #[validate(max_items = 5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<Word>>,
    #[rule("self.find('[0-9]+') != ''", message = "a number somewhere")]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numbered: Option<String>,
    #[rule("self.findAll('[0-9]').size() <= 2", message = "at most two digits")]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sparse: Option<String>,
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
}

/// URLs, IPs, CIDRs, quantities and named formats.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "conformance.kubegen.dev", version = "v1", kind = "CelNet")]
#[serde(rename_all = "camelCase")]
#[rule(
    "!has(self.network) || !has(self.address) || cidr(self.network).containsIP(self.address)",
    message = "address must be in network"
)]
#[rule(
    "!has(self.request) || !has(self.limit) || quantity(self.request).compareTo(quantity(self.limit)) <= 0",
    message = "request must not exceed limit"
)]
pub struct CelNetSpec {
    #[rule("isURL(self)", message = "a URL")]
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    #[rule("url(self).getHost() == 'example.com'", message = "on example.com")]
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
    #[rule(
        "url(self).getScheme() == 'https' && url(self).getPort() == ''",
        message = "https on the default port"
    )]
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secure: Option<String>,
    #[rule("isIP(self)", message = "an IP address")]
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip: Option<String>,
    #[rule("ip(self).family() == 4", message = "an IPv4 address")]
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipv4: Option<String>,
    #[rule("!ip(self).isLoopback()", message = "not a loopback address")]
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<String>,
    #[rule("ip.isCanonical(self)", message = "the canonical form")]
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical: Option<String>,
    #[rule("isCIDR(self)", message = "a CIDR")]
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subnet: Option<String>,
    #[rule("cidr(self).prefixLength() >= 16", message = "at most a /16")]
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub narrow: Option<String>,
    #[rule("cidr('10.0.0.0/8').containsCIDR(self)", message = "inside 10.0.0.0/8")]
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private: Option<String>,
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<String>,
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[rule("isQuantity(self)", message = "a quantity")]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<String>,
    #[rule(
        "quantity(self).isGreaterThan(quantity('100m')) && quantity(self).isLessThan(quantity('2'))",
        message = "between 100m and 2"
    )]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
    #[rule("quantity(self).asInteger() <= 1024", message = "at most 1024")]
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<String>,
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    #[rule(
        "!format.dns1123Label().validate(self).hasValue()",
        message_expression = "format.dns1123Label().validate(self).value()[0]"
    )]
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[rule(
        "!format.named('uuid').value().validate(self).hasValue()",
        message = "a UUID"
    )]
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[rule(
        "!format.dns1123Subdomain().validate(self).hasValue()",
        message = "a DNS subdomain"
    )]
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// Library corners, one rule per probe: each rule holds unless `probe` names it, so a case
/// sets `probe` and the inputs its rule reads.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "conformance.kubegen.dev", version = "v1", kind = "CelProbe")]
#[rule(
    "self.probe != 'unicode' || (self.s.charAt(1) == 'é' && self.s.indexOf('l') == 2 && self.s.lastIndexOf('l') == 3)",
    message = "unicode"
)]
#[rule(
    "self.probe != 'offsets' || (self.s.indexOf('a', 1) == 2 && self.s.lastIndexOf('a', 1) == 0)",
    message = "offsets"
)]
#[rule(
    "self.probe != 'replaceN' || self.s.replace('a', 'b', 1) == 'bac'",
    message = "replaceN"
)]
#[rule(
    "self.probe != 'splitN' || self.s.split(',', 2) == ['a', 'b,c']",
    message = "splitN"
)]
#[rule(
    "self.probe != 'substring' || self.s.substring(2) == 'llo'",
    message = "substring"
)]
#[rule(
    "self.probe != 'format' || '%s/%d'.format([self.s, self.n]) == 'a/1'",
    message = "format"
)]
#[rule(
    "self.probe != 'quote' || strings.quote(self.s).size() == self.s.size() + 2",
    message = "quote"
)]
#[rule(
    "self.probe != 'absorbAll' || self.l.all(x, 10 / x > 5)",
    message = "absorbAll"
)]
#[rule(
    "self.probe != 'absorbOr' || 1 / self.n > 0 || self.n == 0",
    message = "absorbOr"
)]
#[rule(
    "self.probe != 'urlParts' || (url(self.s).getEscapedPath() == '/a%20b' && url(self.s).getQuery()['x'] == ['1', '2'] && url(self.s).getHostname() == 'h')",
    message = "urlParts"
)]
#[rule(
    "self.probe != 'ipKinds' || ip(self.s).isUnspecified() || ip(self.s).isGlobalUnicast()",
    message = "ipKinds"
)]
#[rule(
    "self.probe != 'cidrParts' || (cidr(self.s).ip() == ip('10.0.0.0') && string(cidr(self.s).masked()) == '10.0.0.0/8')",
    message = "cidrParts"
)]
#[rule(
    "self.probe != 'ipString' || string(ip(self.s)) == self.s",
    message = "ipString"
)]
#[rule(
    "self.probe != 'quantityMath' || (quantity(self.s).add(quantity('1')).sub(2).isLessThan(quantity('1')) && quantity(self.s).isInteger())",
    message = "quantityMath"
)]
#[rule(
    "self.probe != 'approx' || quantity(self.s).asApproximateFloat() > 1.0",
    message = "approx"
)]
#[rule(
    "self.probe != 'semver' || (isSemver(self.s) && semver(self.s).major() == 1 && semver(self.s).isLessThan(semver('1.2.0')))",
    message = "semver"
)]
#[rule(
    "self.probe != 'semverErrors' || semver(self.s).major() == 1",
    message = "semverErrors"
)]
#[rule(
    "self.probe != 'optionals' || ([?self.?s, 'b'].size() == 2 && {?'k': self.?s}.size() == 1)",
    message = "optionals"
)]
#[rule(
    "self.probe != 'optional' || self.?s.orValue('none') == 'none'",
    message = "optional"
)]
#[rule(
    "self.probe != 'conversions' || (uint(self.n) == 3u && double(self.n) / 2.0 == 1.5)",
    message = "conversions"
)]
#[rule(
    "self.probe != 'bytes' || bytes(self.s).size() == 5",
    message = "bytes"
)]
#[rule(
    "self.probe != 'timestamp' || (timestamp(self.s).getDayOfWeek() == 1 && timestamp(self.s).getHours('America/New_York') == 7)",
    message = "timestamp"
)]
#[rule(
    "self.probe != 'timeMath' || timestamp(self.s) + duration('24h') > timestamp('2024-01-02T00:00:00Z')",
    message = "timeMath"
)]
#[rule(
    "self.probe != 'duration' || duration(self.s).getMinutes() == 90",
    message = "duration"
)]
#[rule(
    "self.probe != 'listExt' || (self.l.slice(0, 2) == [1, 2] && self.l.distinct().size() == 2 && self.l.reverse()[0] == 2)",
    message = "listExt"
)]
#[rule(
    "self.probe != 'sort' || (self.l.sort() == [1, 2, 3] && lists.range(3) == [0, 1, 2] && [[1], [2]].flatten() == [1, 2])",
    message = "sort"
)]
#[rule(
    "self.probe != 'sortBy' || self.l.sortBy(x, -x)[0] == 3",
    message = "sortBy"
)]
#[rule(
    "self.probe != 'firstLast' || (self.l.first().orValue(0) == 1 && self.l.last().orValue(0) == 9)",
    message = "firstLast"
)]
#[rule("self.probe != 'pairs' || self.l.all(i, v, v > i)", message = "pairs")]
#[rule(
    "self.probe != 'boundary' || self.s.matches('\\\\bfoo\\\\b')",
    message = "boundary"
)]
#[rule("self.probe != 'index' || self.l[self.n] > 0", message = "index")]
#[rule("self.probe != 'overflow' || self.n + 1 > 0", message = "overflow")]
#[rule("self.probe != 'modulus' || self.n % self.n == 0", message = "modulus")]
#[rule(
    "self.probe != 'types' || (type(self.n) == int && type(self.s) == string && type(self.l) == list)",
    message = "types"
)]
#[rule(
    "self.probe != 'doubles' || string(double(self.n) / 3.0) == '0.3333333333333333'",
    message = "doubles"
)]
#[rule(
    "self.probe != 'membership' || self.n in [1, 2, 3]",
    message = "membership"
)]
#[rule(
    "self.probe != 'numbers' || (dyn(self.n) == 1.0 && self.n < 1.5 && self.n > 0u)",
    message = "numbers"
)]
#[rule("self.probe != 'compare' || self.s < 'b'", message = "compare")]
pub struct CelProbeSpec {
    #[validate(max_length = 16)]
    pub probe: String,
    #[validate(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<i64>,
    #[validate(max_items = 5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l: Option<Vec<i64>>,
}
