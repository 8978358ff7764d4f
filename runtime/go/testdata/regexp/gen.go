// Command gen records what Go's regexp package does with a large set of patterns, as the
// corpus kubegen-go's tests check its port against (tests/regexp_corpus.rs). For every
// pattern it records either regexp.Compile's error text or, for every input (the shared
// ones and the pattern's own), MatchString's verdict and FindAllStringIndex's matches.
//
// The patterns: hand-picked ones for every construct and every place Go's syntax differs
// from Rust's regex crate, every Unicode class name Go knows (with inputs drawn from its
// table), case-folding orbits, Go's limits, and seeded random patterns from a grammar that
// mixes all constructs, valid and not.
//
// Run from runtime/go:
//
//	go run testdata/regexp/gen.go > testdata/regexp/corpus.json
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"regexp/syntax"
	"runtime"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// shared inputs every compiled pattern is run against.
var shared = []string{
	"", "a", "A", "aBc", "foo_bar-baz 9", "123", " ", "\t\v\f", "\n", "\r\n", "a\nb",
	"\na\n", "\x00", "é", "ÉCOLE naïve", "日本語", "Ελληνικά", "١٢٣", "５", "\u00a0\u2003",
	"ǅ", "ßẞ", "ſ", "\u212a", "k", "K", "\u212bå", "µμ", "Σσς", "İı", "a😀b", "<tag>",
	"[a]", "a&&b", "a{2}", "x{01}", `\`, "a-z_", ".$^", "(?x)", "abcabc", "aaa", "é!x\u0301",
}

type entry struct {
	Pattern string `json:"pattern"`
	// A long pattern, written as prefix + unit repeated count times + suffix; its error names
	// the whole pattern as "<pattern>".
	Build *build `json:"build,omitempty"`
	Error string `json:"error,omitempty"`
	// Whether the shared inputs are left out (for class tables, whose own inputs suffice).
	OwnOnly bool     `json:"own_only,omitempty"`
	Inputs  []string `json:"inputs,omitempty"`
	// One '1' or '0' per input (shared first, then the pattern's own): MatchString.
	Match string `json:"match,omitempty"`
	// For each input that matched, in order: FindAllStringIndex as "start-end,start-end" (an
	// empty match as "start").
	Find []string `json:"find,omitempty"`
}

type build struct {
	Prefix string `json:"prefix,omitempty"`
	Unit   string `json:"unit"`
	Middle string `json:"middle,omitempty"`
	// Repeated count times after the middle, as closing groups are.
	Close  string `json:"close,omitempty"`
	Count  int    `json:"count"`
	Suffix string `json:"suffix,omitempty"`
}

func (b *build) pattern() string {
	return b.Prefix + strings.Repeat(b.Unit, b.Count) + b.Middle + strings.Repeat(b.Close, b.Count) + b.Suffix
}

var rng = rand.New(rand.NewSource(20))

// options of a pattern in the corpus.
type options struct {
	ownOnly bool
	build   *build
	inputs  []string
}

func main() {
	var patterns []string
	opts := map[string]*options{}
	addWith := func(p string, o options) {
		if !utf8.ValidString(p) {
			return
		}
		prev, seen := opts[p]
		if !seen {
			patterns = append(patterns, p)
			prev = &options{ownOnly: o.ownOnly, build: o.build}
			opts[p] = prev
		}
		prev.ownOnly = prev.ownOnly && o.ownOnly
		prev.inputs = append(prev.inputs, o.inputs...)
	}
	add := func(p string, inputs ...string) { addWith(p, options{inputs: inputs}) }
	addOwn := func(p string, inputs ...string) { addWith(p, options{ownOnly: true, inputs: inputs}) }
	addBuilt := func(b build, inputs ...string) { addWith(b.pattern(), options{build: &b, inputs: inputs}) }

	for _, p := range handPicked {
		add(p)
	}
	classNames(add, addOwn)
	caseFolding(addOwn)
	limits(add, addBuilt)
	for n := 0; n < 2500; {
		if p := randomPattern(3); len(p) <= 80 {
			add(p)
			n++
		}
	}

	var out []entry
	for _, p := range patterns {
		o := opts[p]
		e := entry{Pattern: p, Build: o.build, OwnOnly: o.ownOnly}
		if o.build != nil {
			e.Pattern = ""
		}
		re, err := regexp.Compile(p)
		if err != nil {
			e.Error = err.Error()
			if o.build != nil {
				e.Error = strings.Replace(e.Error, p, "<pattern>", 1)
			}
			out = append(out, e)
			continue
		}
		inputs := o.inputs
		if tree, err := syntax.Parse(p, syntax.Perl); err == nil && o.build == nil && !o.ownOnly {
			for i := 0; i < 6; i++ {
				s := sample(tree, 0)
				inputs = append(inputs, s, mutate(s))
			}
		}
		e.Inputs = dedupe(inputs)
		all := e.Inputs
		if !o.ownOnly {
			all = append(append([]string{}, shared...), e.Inputs...)
		}
		var match strings.Builder
		for _, in := range all {
			if !re.MatchString(in) {
				match.WriteByte('0')
				continue
			}
			match.WriteByte('1')
			var spans []string
			for _, m := range re.FindAllStringIndex(in, -1) {
				if m[0] == m[1] {
					spans = append(spans, fmt.Sprint(m[0]))
				} else {
					spans = append(spans, fmt.Sprintf("%d-%d", m[0], m[1]))
				}
			}
			e.Find = append(e.Find, strings.Join(spans, ","))
		}
		e.Match = match.String()
		out = append(out, e)
	}

	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\n\"go\": %q,\n\"unicode\": %q,\n\"shared\": %s,\n\"patterns\": [\n", runtime.Version(), unicode.Version, marshal(shared))
	for i, e := range out {
		sep := ","
		if i == len(out)-1 {
			sep = ""
		}
		fmt.Fprintf(&buf, "%s%s\n", marshal(e), sep)
	}
	buf.WriteString("]\n}\n")
	os.Stdout.Write(buf.Bytes())
}

func marshal(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] && utf8.ValidString(s) {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// handPicked covers each construct of Go's syntax and each place it differs from Rust's.
var handPicked = []string{
	// Literals, escapes and their errors.
	``, `a`, `abc`, `a.c`, `\.`, `\\`, `\/`, `\-`, `\_`, `\<`, `\>`, `\<word\>`, `\#`, `\ `, `\'`,
	`\"`, `\!`, `\@`, `\%`, `\~`, "\\`", `\a`, `\f`, `\t`, `\n`, `\r`, `\v`, `\0`, `\00`, `\000`,
	`\0000`, `\07`, `\08`, `\1`, `\12`, `\101`, `\141\142`, `\400`, `\777`, `\8`, `\9`, `\x41`,
	`\x4`, `\x`, `\xZZ`, `\xA`, `\x{41}`, `\x{212A}`, `\x{10FFFF}`, `\x{110000}`, `\x{}`, `\x{g}`,
	`\x{41`, `\x{D800}`, `\x{0}`, `\e`, `\i`, `\y`, `\g`, `\k<n>`, `\K`, `\h`, `\H`, `\R`, `\X`,
	`\N`, `\Z`, `\G`, `\c`, `\C`, `\E`, `\é`, `\😀`, `\u0041`, `\U00000041`, `\o{101}`, `\`, `a\`,
	`\Q`, `\Qa.b\E`, `\Qa.b`, `\Q\E`, `\Q[\E`, `x\Qa*\E*`, `\Qab\E+`, `(?i)\QaB\E`, `\Q\\E`,
	`[\Q]`, `\Qa\Eb\Ec`,
	// Perl classes, assertions and anchors.
	`\d`, `\D`, `\s`, `\S`, `\w`, `\W`, `\d+`, `^\d+$`, `^\s$`, `^\S+$`, `^\w+$`, `^\W+$`,
	`\b`, `\B`, `\bword\b`, `\Bor\B`, `\bé`, `é\b`, `\b\w+\b`, `^\b$`, `\B$`, `^`, `$`, `^$`,
	`\A`, `\z`, `\Aa`, `a\z`, `a$`, `^a`, `(?m)^a`, `(?m)a$`, `(?m)^$`, `(?m)^b`, `(?m)\Ab`,
	`(?m)a\z`, `$a`, `a^`, `(?m)$\n^`, `^*`, `$+`, `\b*`, `(?:^)*a`, `\A*`, `(^)*`, `(?m)^*$`,
	// Classes.
	`[a]`, `[abc]`, `[a-z]`, `[^a-z]`, `[a-]`, `[-a]`, `[]a]`, `[^]a]`, `[]`, `[^]`, `[`, `[a`,
	`[a-`, `[\]`, `[\]]`, `[]-a]`, `[z-a]`, `[a-a]`, `[--a]`, `[a--b]`, `[a-\d]`, `[\d-z]`,
	`[a&&b]`, `[a&&[b]]`, `[a||b]`, `[a~~b]`, `[a--[b]]`, `[[a]]`, `[[a]`, `[a[]`, `[[]`, `[]]`,
	`[\d]`, `[\D]`, `[^\d]`, `[\s\S]`, `[\w.]`, `[^\W]`, `[\b]`, `[\B]`, `[\A]`, `[\z]`, `[\n]`,
	`[\x41-\x5a]`, `[\x{0}-\x{10FFFF}]`, `[^\x{0}-\x{10FFFF}]`, `[\0-\x{7f}]`, `[\.]`, `[\-]`,
	`[a\-z]`, `[\pL]`, `[\PL]`, `[\p{Greek}\d]`, `[^\pL\pN]`, `[\p{^Greek}]`, `[\p]`, `[\pZ]`,
	`[.]`, `[$]`, `[\^]`, `[^^]`, `[|]`, `[(]`, `[)]`, `[{]`, `[*+?]`, `[é-ü]`, `[😀-😃]`,
	`[\x{D800}-\x{DFFF}]`, `[^\n]`, `[\r\n]`, `[ -~]`,
	`[[:alpha:]]`, `[[:^alpha:]]`, `[[:alnum:]]`, `[[:ascii:]]`, `[[:blank:]]`, `[[:cntrl:]]`,
	`[[:digit:]]`, `[[:graph:]]`, `[[:lower:]]`, `[[:print:]]`, `[[:punct:]]`, `[[:space:]]`,
	`[[:upper:]]`, `[[:word:]]`, `[[:xdigit:]]`, `[[:^space:]]`, `[[:^word:]]`, `[[:foo:]]`,
	`[[:alpha:][:digit:]]`, `[[:alpha:]-z]`, `[[:alpha]`, `[[:alpha:]`, `[:alpha:]`, `[[:]]`,
	`[[:^:]]`, `[[:ALPHA:]]`, `[[=a=]]`, `[[.a.]]`, `(?i)[[:lower:]]`, `(?i)[[:^lower:]]`,
	`(?i)[[:upper:]]`, `(?i)[[:word:]]`, `(?i)[[:^word:]]`, `[[:word:]]+`,
	// Unicode classes.
	`\pL`, `\pN`, `\PL`, `\PN`, `\p{L}`, `\p{Lu}`, `\p{Ll}`, `\p{Nd}`, `\p{Greek}`, `\P{Greek}`,
	`\p{^Greek}`, `\P{^Greek}`, `\p{greek}`, `\p{GREEK}`, `\p{Old_Italic}`, `\p{old italic}`,
	`\p{Old-Italic}`, `\p{OldItalic}`, `\p{Letter}`, `\p{letter}`, `\p{Uppercase_Letter}`,
	`\p{Decimal_Number}`, `\p{digit}`, `\p{punct}`, `\p{cntrl}`, `\p{Any}`, `\p{any}`,
	`\p{Assigned}`, `\P{Assigned}`, `\p{ASCII}`, `\p{ascii}`, `\P{ASCII}`, `\p{LC}`, `\p{Lc}`,
	`\p{L&}`, `\p{Cased_Letter}`, `\p{Cn}`, `\p{Cs}`, `\p{Co}`, `\p{Zs}`, `\p{Han}`, `\p{Latin}`,
	`\p{Common}`, `\p{Inherited}`, `\p{Zinh}`, `\p{Zyyy}`, `\p{Grek}`, `\p{Script=Greek}`,
	`\p{sc=Greek}`, `\p{scx=Greek}`, `\p{gc=L}`, `\p{General_Category=L}`, `\p{Alphabetic}`,
	`\p{White_Space}`, `\p{Emoji}`, `\p{IsGreek}`, `\p{InGreek}`, `\p{Foo}`, `\p{}`, `\p{^}`, `\pX`,
	`\p`, `\P`, `\pé`, `\p{`, `\p{L`, `\p^L`, `\p{Sidetic}`, `\p{Tolong_Siki}`, `\p{Beria_Erfe}`,
	`\p{Tai_Yo}`, `\pL+`, `(?i)\p{Lu}`, `(?i)\P{Lu}`, `(?i)\p{Ll}`, `(?i)\p{Greek}`,
	`(?i)\P{Greek}`, `(?i)\p{ASCII}`, `(?i)\P{ASCII}`, `(?i)\p{Any}`, `(?i)\p{Assigned}`,
	`(?i)\pL`, `(?i)\p{Lt}`, `(?i)\p{Common}`, `(?i)\p{Inherited}`, `(?i)\p{Latin}`,
	// Flags and groups.
	`(?i)abc`, `(?i)k`, `(?i)K`, `(?i)\x{212A}`, `(?i)s`, `(?i)ſ`, `(?i)ß`, `(?i)ẞ`, `(?i)σ`,
	`(?i)Σ`, `(?i)ς`, `(?i)µ`, `(?i)å`, `(?i)\x{212B}`, `(?i)i`, `(?i)İ`, `(?i)ı`, `(?i)ǅ`,
	`(?i)[k]`, `(?i)[^k]`, `(?i)[a-z]`, `(?i)[^a-z]`, `(?i)\w`, `(?i)\W`, `(?i)\d`, `(?i)[\w]`,
	`(?i)[^\w]`, `(?i)[kK]`, `[kK]`, `[Aa]`, `(?i)[Aa]`, `[Δδ]`, `(?i)\QK\E`, `(?i)ab|(?-i)cd`,
	`(?i:a)b`, `a(?i)b|c`, `(?i)a(?-i)b`, `(?i:a(?-i:b))`, `(?s).`, `(?s:.)`, `.`, `(?-s).`,
	`(?s)a.b`, `(?m)`, `(?s)`, `(?U)`, `(?U)a+`, `(?U)a+?`, `(?U:a*)`, `(?i-s)`, `(?is)`,
	`(?ims-U)`, `(?-i)`, `(?-)`, `(?i-)`, `(?--i)`, `(?i-i)`, `(?)`, `(?:)`, `(?:a)`, `(?:a|b)c`,
	`(?x)`, `(?x)a b`, `(?u)`, `(?a)`, `(?n)`, `(?J)`, `(?R)`, `(?1)`, `(?#comment)`, `(?=a)`,
	`(?!a)`, `(?<=a)`, `(?<!a)`, `(?>a)`, `(?|a)`, `(?P=n)`, `(?P>n)`, `(?'n'a)`, `(?&n)`,
	`(?P<n>a)`, `(?<n>a)`, `(?P<n>a)(?P<n>b)`, `(?P<1>a)`, `(?P<_>a)`, `(?P<a_1>a)`, `(?P<>a)`,
	`(?<>a)`, `(?P<n`, `(?<n`, `(?P<n-1>a)`, `(?P<é>a)`, `(?P<n>`, `(?P`, `(?<`, `(?`, `(`, `)`,
	`()`, `(a`, `a)`, `(a))`, `((a)`, `(()`, `(?i`, `(?i:`, `(a|b`, `a|b)`, `(|)`, `(a|)`, `(|a)`,
	// Alternation and repetition.
	`a|b`, `a|b|c`, `ab|cd`, `abc|abd`, `a|`, `|a`, `|`, `||`, `a||b`, `a|b|`, `x(a|b)y`,
	`ab|ac|ad`, `[ab]c|[ab]d`, `a{2}b|a{2}c`, `a*|b*`, `(a|ab)(c|bcd)(d*)`, `(a+|b+)*`,
	`a*`, `a+`, `a?`, `a*?`, `a+?`, `a??`, `a{2}`, `a{2,}`, `a{2,3}`, `a{0}`, `a{0,0}`, `a{0,}`,
	`a{,3}`, `a{,}`, `a{`, `a{1`, `a{1,`, `a{1,2`, `a{a}`, `a{1,a}`, `a{01}`, `a{00}`, `a{0}b`,
	`a{1,02}`, `a{ 1}`, `a{1 }`, `{`, `}`, `{}`, `{1}`, `{1,2}`, `a{1000}`, `a{1001}`,
	`a{0,1000}`, `a{0,1001}`, `a{1000,}`, `a{1001,}`, `a{2,1}`, `a{99999999999}`,
	`a{1,99999999999}`, `a{2}?`, `a{2,}?`, `a{2}{3}`, `a{2}*`, `a**`, `a*+`, `a+*`, `a??*`,
	`a*??`, `a++`, `a?+`, `a*?*`, `*`, `+`, `?`, `*a`, `(*)`, `(+a)`, `a|*`, `a(*)`, `(?:*)`,
	`^*a`, `(?i)*`, `x(?i)*`, `(a{2}){3}`, `(a{10}){100}`, `(a{10}){101}`, `((a{10}){10}){10}`,
	`((a{10}){10}){11}`, `(a{1000}){0}`, `(a{0}){1000}`, `(a*){1000}`, `(a{2,}){500}`,
	`(a{2,}){501}`, `(?:a{2}|b{3}){300}`, `(?:a{2}|b{3}){400}`, `(?:a{1,2}b){500}`, `(a?){2}`,
	`(a*)*`, `(a*)+`, `(a+)*`, `(a?)*`, `(|a)*`, `(|a)+`, `(a|)*`, `(a*?)*`, `(?:a*)*b`,
	`(a|b)*?c`, `(a?){3}`, `(a??){3}`, `(a*){2,3}`, `(?U)(a|b)*c`, `x*y*z*`, `(?:)+`, `(?:)*?`,
	`()*`, `()+`, `(^)+`, `($)*`, `(\b)*`,
	// Patterns from Kubernetes itself.
	`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`, `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`,
	`^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`,
	`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`, `^[0-9]+(\.[0-9]+)?(ms|s|m|h)$`,
	`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`, `^\d{4}-\d{2}-\d{2}$`, `(?i)^[0-9a-f]{8}-[0-9a-f]{4}$`,
	`^[^\s]+$`, `^\S+@\S+\.\S+$`, `^https?://`, `^v[0-9]+((alpha|beta)[0-9]+)?$`,
	// Misc.
	"\x00", "a\x00b", "\t", " ", "é", "😀", "日本", "a\nb", `\p{Han}+`, `[^\x00-\x7F]`, `(?s)^.*$`,
	`^.*$`, `(?m)^.*$`, `.+`, `.*`, `(?U).+`, `a.*b`, `a.*?b`, `(?i)straße`, `(?i)STRASSE`,
	`(?i)ǆ`, `(?i)Ǆ`, `(?i)ΐ`, `(?i)ﬀ`, `(?i)ß|ss`, `\Bé`, `\bk`, `(?i)\bk\b`,
}

// classNames adds \p{Name} for every name Go knows, in several spellings, with inputs drawn
// from the table and around it.
func classNames(add, addOwn func(string, ...string)) {
	names := map[string]*unicode.RangeTable{}
	for n, t := range unicode.Categories {
		names[n] = t
	}
	for n, t := range unicode.Scripts {
		names[n] = t
	}
	for alias, n := range unicode.CategoryAliases {
		names[alias] = unicode.Categories[n]
	}
	keys := make([]string, 0, len(names))
	for n := range names {
		keys = append(keys, n)
	}
	sort.Strings(keys)
	for _, n := range keys {
		inputs := tableSamples(names[n])
		addOwn(`\p{`+n+`}`, inputs...)
		addOwn(`\P{`+n+`}`, inputs...)
		addOwn(`(?i)\p{`+n+`}`, inputs...)
		addOwn(`(?i)\P{`+n+`}`, inputs...)
		addOwn(`^\p{`+n+`}+$`, inputs[:len(inputs)/4]...)
		addOwn(`\p{`+strings.ToLower(n)+`}`, inputs[:len(inputs)/4]...)
		addOwn(`\p{`+strings.ToUpper(strings.ReplaceAll(n, "_", " "))+`}`, inputs[:len(inputs)/4]...)
		if len(n) == 1 {
			addOwn(`\p`+n, inputs...)
			addOwn(`\P`+n, inputs...)
		}
	}
}

// tableSamples picks runes in a table and just outside its ranges.
func tableSamples(t *unicode.RangeTable) []string {
	var runes []rune
	visit := func(lo, hi, stride rune) {
		runes = append(runes, lo-1, lo, hi, hi+1)
		if stride > 1 && lo+stride <= hi {
			runes = append(runes, lo+1, lo+stride)
		}
	}
	for _, r := range t.R16 {
		visit(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	for _, r := range t.R32 {
		visit(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	rng.Shuffle(len(runes), func(i, j int) { runes[i], runes[j] = runes[j], runes[i] })
	var out []string
	for i, r := range runes {
		if i >= 16 {
			break
		}
		if r >= 0 && utf8.ValidRune(r) {
			out = append(out, string(r))
		}
	}
	return out
}

// caseFolding adds (?i) literals and classes for runes with interesting orbits.
func caseFolding(add func(string, ...string)) {
	add(`(?i)k`, "k", "K", "\u212a", "x")
	seen := map[rune]bool{}
	var orbits [][]rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if seen[r] || unicode.SimpleFold(r) == r {
			continue
		}
		orbit := []rune{r}
		seen[r] = true
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			orbit = append(orbit, f)
			seen[f] = true
		}
		orbits = append(orbits, orbit)
	}
	for i, orbit := range orbits {
		// Every orbit of three or more, and a sample of the pairs.
		if len(orbit) < 3 && i%17 != 0 {
			continue
		}
		var inputs []string
		for _, r := range orbit {
			inputs = append(inputs, string(r), string(r+1), string(r-1))
		}
		r := string(orbit[0])
		add(`(?i)`+r, inputs...)
		add(`(?i)[`+r+`]`, inputs...)
		add(`(?i)[^`+r+`]`, inputs...)
		add(`(?i)`+regexp.QuoteMeta(string(orbit[len(orbit)-1]))+`x`, inputs...)
		add(`(?i)[`+r+`-`+string(orbit[0]+2)+`]`, inputs...)
	}
}

// limits adds patterns at Go's limits: repeat counts, nesting, program size and class runes.
func limits(add func(string, ...string), addBuilt func(build, ...string)) {
	// Nesting: n open groups, an inner pattern, n closes.
	nest := func(open, inner, close string, n int, inputs ...string) {
		addBuilt(build{Unit: open, Middle: inner, Close: close, Count: n}, inputs...)
	}
	for _, n := range []int{998, 999, 1000, 1001} {
		nest("(", "a", ")", n, "a")
		nest("(?:", "a", ")", n, "a")
		nest("(?:a", "b", ")*", n/4, "b", "ab")
		nest("(", "a", ")*", n, "a")
		nest("[a](", "", ")", n, "a")
		nest("(?:a|b", "", ")", n, "a", "c")
	}
	nest("(?:a", "", ")", 1200, "a")
	nest("(?:a|b", "", ")", 700, "a")
	nest("(a|", "b", ")", 500, "b")
	// Program size: a long literal or alternation repeated 1000 times (no inputs: the test
	// only parses patterns built this way, as compiling them takes seconds).
	for _, n := range []int{3350, 3354, 3356, 3360, 3400} {
		addBuilt(build{Prefix: "(?:", Unit: "a", Count: n, Suffix: "){1000}"})
	}
	addBuilt(build{Prefix: "(?:", Unit: "ab|", Count: 1100, Suffix: "c){1000}"})
	addBuilt(build{Prefix: "(?:", Unit: "ab|", Count: 1200, Suffix: "c){1000}"})
	addBuilt(build{Prefix: "(?:", Unit: "a|b|", Count: 1100, Suffix: "c){1000}"})
	// Runes in classes, counted again each time a group hands its class on: the last
	// depth Go accepts, and one more.
	for _, c := range []struct {
		class string
		n     int
	}{{`[\pL\pN]`, 7187}, {`\pL`, 8175}, {`(?i)\pL`, 8163}} {
		addBuilt(build{Unit: "(?:", Middle: c.class, Close: ")", Count: c.n})
		addBuilt(build{Unit: "(?:", Middle: c.class, Close: ")", Count: c.n + 1})
	}
	addBuilt(build{Unit: "a", Count: 5000}, strings.Repeat("a", 5000))
	addBuilt(build{Unit: "a|", Count: 3000, Suffix: "b"}, "b")
	addBuilt(build{Unit: "a*", Count: 3000}, "aaa")
	add(`\pL{1000}`, strings.Repeat("é", 1000), strings.Repeat("é", 999))
	add(`(?:\pL{10}){10}`, strings.Repeat("é", 100))
	add(`(?i)\pL{50}`, strings.Repeat("Σ", 50))
}

// randomPattern draws a pattern from a grammar mixing every construct, now and then broken.
func randomPattern(depth int) string {
	var b strings.Builder
	alternation(&b, depth)
	return b.String()
}

func pick(xs ...string) string { return xs[rng.Intn(len(xs))] }

func alternation(b *strings.Builder, depth int) {
	n := 1 + rng.Intn(3)
	if rng.Intn(3) > 0 {
		n = 1
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte('|')
		}
		concatenation(b, depth)
	}
}

func concatenation(b *strings.Builder, depth int) {
	for i, n := 0, rng.Intn(5); i < n; i++ {
		atom(b, depth)
		if rng.Intn(3) == 0 {
			b.WriteString(pick("*", "+", "?", "*?", "+?", "??", "{2}", "{1,3}", "{0,}", "{2,}?",
				"{0,1}", "{3}", "{1,2}?", "{0}", "{,2}", "{01}", "{3,2}", "**", "{2}{2}", "*+"))
		}
	}
}

var literals = []string{
	"a", "b", "c", "k", "K", "s", "S", "x", "z", "0", "1", "9", "_", "-", " ", ",", ":", "=",
	"é", "ß", "σ", "Σ", "ſ", "\u212a", "日", "😀", "\\.", "\\*", "\\+", "\\?", "\\(", "\\)",
	"\\[", "\\]", "\\{", "\\}", "\\|", "\\\\", "\\^", "\\$", "\\-", "\\<", "\\>", "\\_", "\\/",
	"\\n", "\\t", "\\x41", "\\x{212A}", "\\101", "\\0", "&", "~", "#", "'", "\"", "<", ">", "/",
	"{", "}", "]",
}

func atom(b *strings.Builder, depth int) {
	switch r := rng.Intn(24); {
	case r < 8:
		b.WriteString(pick(literals...))
	case r < 11:
		b.WriteString(pick(`\d`, `\D`, `\s`, `\S`, `\w`, `\W`, `\b`, `\B`, `\A`, `\z`, `\pL`,
			`\pN`, `\PL`, `\p{Greek}`, `\p{Lu}`, `\p{^Ll}`, `\P{Nd}`, `\p{Latin}`, `\QA.b\E`,
			`\Q*`, `.`, `^`, `$`, `.`, `^`, `$`))
	case r < 15:
		class(b)
	case r < 20 && depth > 0:
		b.WriteString(pick("(", "(?:", "(?i:", "(?s:", "(?m:", "(?U:", "(?-i:", "(?i-s:",
			"(?P<n>", "(?<m>", "("))
		alternation(b, depth-1)
		b.WriteString(")")
	case r < 22:
		b.WriteString(pick("(?i)", "(?m)", "(?s)", "(?U)", "(?-i)", "(?im)", "(?is)", "(?i)"))
	default:
		// Now and then something Go refuses, or reads differently from Rust.
		b.WriteString(pick(`(?x)`, `\8`, `[z-a]`, `(?P<1`, `\pX`, `\C`, `(`, `)`, `[`, `a{1001}`,
			`\`, `[a&&b]`, `[[a]]`, `[a~~b]`, `(?=a)`, `\k<n>`, `(?#x)`, `\e`, `[\b]`, `(?u)`,
			`\x{110000}`, `[:alpha:]`, `\p{Foo}`))
	}
}

func class(b *strings.Builder) {
	b.WriteString(pick("[", "[", "[^"))
	if rng.Intn(8) == 0 {
		b.WriteString("]")
	}
	for i, n := 0, 1+rng.Intn(4); i < n; i++ {
		switch r := rng.Intn(10); {
		case r < 4:
			b.WriteString(pick("a", "k", "z", "0", "é", "σ", "\u212a", "_", ".", "*", "[", "&", "~",
				"\\]", "\\-", "\\\\", "\\n", "\\x41", "^", "$", "|", "(", ")"))
		case r < 7:
			b.WriteString(pick("a-z", "A-Z", "0-9", "a-f", "k-k", "α-ω", "\\x00-\\x7f", "!-/",
				"ß-ÿ", "\\x{100}-\\x{17f}", "--/", "a-\\x{212A}"))
		case r < 9:
			b.WriteString(pick(`\d`, `\D`, `\s`, `\S`, `\w`, `\W`, `\pL`, `\PN`, `\p{Greek}`,
				`\p{^Lu}`, "[:alpha:]", "[:^digit:]", "[:word:]", "[:space:]", "[:upper:]",
				"[:lower:]", "[:punct:]"))
		default:
			b.WriteString(pick("-", "&&", "--", "~~", "||", "[a]", "[:foo:]", `\b`, `\Q`))
		}
	}
	if rng.Intn(20) > 0 {
		b.WriteString("]")
	}
}

// sample draws a string the parsed pattern could match (anchors and word boundaries
// ignored, so some samples miss).
func sample(re *syntax.Regexp, depth int) string {
	if depth > 40 {
		return ""
	}
	var b strings.Builder
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && rng.Intn(2) == 0 {
				r = unicode.SimpleFold(r)
			}
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		if len(re.Rune) > 0 {
			i := rng.Intn(len(re.Rune)/2) * 2
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi-lo > 200 {
				hi = lo + 200
			}
			b.WriteRune(lo + rune(rng.Intn(int(hi-lo)+1)))
		}
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteString(pick("a", "é", "\n", " ", "😀", "K", "_"))
	case syntax.OpCapture:
		b.WriteString(sample(re.Sub[0], depth+1))
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		min, max := 0, 3
		switch re.Op {
		case syntax.OpPlus:
			min = 1
		case syntax.OpQuest:
			max = 1
		case syntax.OpRepeat:
			min, max = re.Min, re.Max
			if max < 0 || max > min+3 {
				max = min + 3
			}
		}
		if min > 20 {
			min, max = 20, 20
		}
		for i, n := 0, min+rng.Intn(max-min+1); i < n; i++ {
			b.WriteString(sample(re.Sub[0], depth+1))
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			b.WriteString(sample(sub, depth+1))
		}
	case syntax.OpAlternate:
		b.WriteString(sample(re.Sub[rng.Intn(len(re.Sub))], depth+1))
	}
	s := b.String()
	if len(s) > 200 {
		s = s[:200]
	}
	return strings.ToValidUTF8(s, "")
}

// mutate changes a sample a little: a rune dropped, added, or its case changed.
func mutate(s string) string {
	runes := []rune(s)
	switch rng.Intn(5) {
	case 0:
		if len(runes) > 0 {
			i := rng.Intn(len(runes))
			runes = append(runes[:i], runes[i+1:]...)
		}
	case 1:
		i := rng.Intn(len(runes) + 1)
		extra := []rune(pick("a", "Z", "\n", " ", "é", "0", "K", "\u212a", "-", "_"))
		runes = append(runes[:i], append(extra, runes[i:]...)...)
	case 2:
		for i, r := range runes {
			runes[i] = unicode.SimpleFold(r)
		}
	case 3:
		return "x" + s + "\n"
	default:
		return s + s
	}
	return string(runes)
}
