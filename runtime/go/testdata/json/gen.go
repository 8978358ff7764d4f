// Command gen records what Go's encoding/json does with a large set of JSON bodies, as the
// corpus kubegen-go's json module is checked against (tests/json_corpus.rs). For every body
// it records what kube-apiserver's two decodes of a request body see:
//
//   - "fields": the body decoded into the struct apimachinery's SimpleMetaFactory.Interpret
//     uses (apiVersion and kind, matched case-insensitively), or the error;
//   - "error": the error decoding it into interface{}, or else "value": the body decoded
//     with sigs.k8s.io/json's PreserveInts semantics (an integer literal without '.' that
//     fits int64 stays int64, anything else is float64) and written back with json.Marshal.
//
// The bodies: hand-picked ones for every scanner state, escapes, invalid UTF-8, surrogates,
// numbers at the edges of int64 and float64, case-folded keys, depth at Go's limit; and
// seeded random documents with seeded random mutations.
//
// Run from runtime/go, with the v1 encoding/json kube-apiserver is built with:
//
//	GOEXPERIMENT=nojsonv2 go run testdata/json/gen.go > testdata/json/corpus.json
package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"
)

type entry struct {
	// The body: as text when it is UTF-8, else as hex.
	Input string `json:"input,omitempty"`
	Hex   string `json:"hex,omitempty"`
	// A deep body: prefix + unit × count + middle + close × count.
	Build  *build    `json:"build,omitempty"`
	Fields *[]string `json:"fields,omitempty"`
	// The Interpret error, when there is one.
	FieldsError string `json:"fields_error,omitempty"`
	Error       string `json:"error,omitempty"`
	Value       string `json:"value,omitempty"`
}

type build struct {
	Prefix string `json:"prefix,omitempty"`
	Unit   string `json:"unit"`
	Middle string `json:"middle,omitempty"`
	Close  string `json:"close,omitempty"`
	Count  int    `json:"count"`
}

func (b *build) bytes() []byte {
	return []byte(b.Prefix + strings.Repeat(b.Unit, b.Count) + b.Middle + strings.Repeat(b.Close, b.Count))
}

// preserveInts turns json.Numbers into what sigs.k8s.io/json's PreserveInts decodes.
func preserveInts(v interface{}) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		for k, x := range t {
			t[k] = preserveInts(x)
		}
		return t
	case []interface{}:
		for i, x := range t {
			t[i] = preserveInts(x)
		}
		return t
	case json.Number:
		s := string(t)
		if !strings.Contains(s, ".") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return i
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			panic(err) // Unmarshal into interface{} reported it already.
		}
		return f
	}
	return v
}

func record(data []byte, b *build) entry {
	var e entry
	if b != nil {
		e.Build = b
	} else if utf8.Valid(data) {
		e.Input = string(data)
	} else {
		e.Hex = hex.EncodeToString(data)
	}
	meta := struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
	}{}
	if err := json.Unmarshal(data, &meta); err != nil {
		e.FieldsError = err.Error()
	} else {
		e.Fields = &[]string{meta.APIVersion, meta.Kind}
	}
	var plain interface{}
	if err := json.Unmarshal(data, &plain); err != nil {
		e.Error = err.Error()
		return e
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v interface{}
	if err := d.Decode(&v); err != nil {
		panic(err)
	}
	out, err := json.Marshal(preserveInts(v))
	if err != nil {
		panic(err)
	}
	e.Value = string(out)
	return e
}

var handPicked = []string{
	``, ` `, `null`, `true`, `false`, `0`, `-0`, `-0.0`, `1`, `1.0`, `1e3`, `1E3`, `1e+3`, `1e-3`,
	`"x"`, `[]`, `{}`, ` {} `, "\t\n\r{}\n", `[1,2,3]`, `{"a":1}`,
	`{"a":1,"a":2}`, `{"a":{"b":1},"a":[1]}`,
	`9223372036854775807`, `9223372036854775808`, `-9223372036854775808`, `-9223372036854775809`,
	`18446744073709551615`, `18446744073709551616`, `123456789012345678901234567890`,
	`10.000000000000001`, `0.1`, `0.30000000000000004`, `1e21`, `1e20`, `123456789012345678901`,
	`1e308`, `1.7976931348623157e308`, `1.7976931348623159e308`, `1e309`, `-1e309`, `1e400`,
	`4.9e-324`, `5e-324`, `2e-324`, `1e-400`, `1e-6`, `1e-7`, `0.000001`, `0.0000001`,
	`1.5e300`, `[1e309, 1]`, `{"a": 1e309, "b": "x"}`, `[1, 1e999, {"x": -1e999}]`,
	`2.2250738585072011e-308`, `2.2250738585072014e-308`, `9007199254740993`, `9007199254740993.0`,
	`01`, `-`, `-x`, `1.`, `1.x`, `1e`, `1ex`, `1e+`, `.5`, `+1`, `0x10`, `1_000`, `NaN`, `Infinity`, `-Infinity`,
	`tru`, `trux`, `nul`, `nulx`, `fals`, `falsex`, `True`, `nil`,
	`"\u00e9"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00"`, `"a\ud800b"`, `"\ude00\ud83d"`,
	`"\ud83d\ud83d\ude00"`, `"\ud800\u0041"`, `"\u0000"`, `"a\u0000b"`, `"\/"`, `"\b\f\n\r\t"`,
	`"\'"`, `"\q"`, `"\u12g4"`, `"\u12"`, `"\u"`, `"\`, `"abc`, "\"a\nb\"", "\"a\tb\"", "\"a\x7fb\"",
	"\"\u2028\u2029\"", `"<a>&"`, `"\u003c"`, `"é😀"`,
	`{"kind":"Widget"}`, `{"kind":"A","kind":"B"}`, `{"Kind":"A"}`, `{"KIND":"A","kind":"B"}`,
	`{"kind":"A","KIND":"B"}`, `{"\u212aind":"K"}`, `{"ﬁkind":"x"}`, `{"kınd":"x"}`, `{"kİnd":"x"}`,
	`{"apiVerſion":"v"}`, `{"APIVERSION":"v1"}`, `{"ApiVersion":"a/b"}`, `{"apiversion":"x","apiVersion":"y"}`,
	`{"kind":null}`, `{"kind":"A","kind":null}`, `{"kind":1}`, `{"kind":1,"kind":"A"}`, `{"kind":"A","kind":1}`,
	`{"kind":true}`, `{"kind":{}}`, `{"kind":[]}`, `{"kind":{"a":[1]}}`, `{"apiVersion":1,"kind":{}}`,
	`{"kind":1e309}`, `{"kind":"A","x":1e309}`, `{"spec":{"kind":1}}`,
	`[{"kind":"A"}]`, `"kind"`, `{"kind":"A"} x`, `{"kind":"A"}{}`, `{"kind":"A"},`,
	"{\"kind\":\"A\"}\x00", "\xef\xbb\xbf{}", `{not json`, `{"a" 1}`, `{"a": 1 "b": 2}`, `{"a":1,}`,
	`[1 2]`, `[1,]`, `[,1]`, `{,}`, `{"a"}`, `{"a":}`, `{:1}`, `{1:1}`, `{'a':1}`, `/*c*/{}`, `{} // c`,
	"a: 1\nb: 2\n", `{"a":[1,{"b":[]}]}`, `[[[[[]]]]]`, `[{}, {"": ""}]`, `{"": 1, "": 2}`,
	"\"\xff\"", "\"a\xffb\"", "{\"k\xffy\":1}", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xe2\x82\"",
	"\"\xe2\x82\xac\"", "\"\xf4\x90\x80\x80\"", "\"\xf0\x9f\x98\"", "\"\x80\"", "\xff", "\x9e", "\xc3\xa9",
	"[\"\xff\",\"\xfe\xff\"]", "{\"a\":\"\xf8\x88\x80\x80\x80\"}",
}

// A random document, nested at most depth deep.
func randomValue(r *rand.Rand, depth int) string {
	n := r.Intn(12)
	if depth <= 0 && n >= 9 {
		n = r.Intn(9)
	}
	switch n {
	case 0:
		return "null"
	case 1:
		return []string{"true", "false"}[r.Intn(2)]
	case 2, 3:
		return randomNumber(r)
	case 4, 5, 6, 7, 8:
		return randomString(r)
	case 9, 10:
		var parts []string
		for i := r.Intn(5); i > 0; i-- {
			parts = append(parts, randomString(r)+":"+randomValue(r, depth-1))
		}
		return "{" + strings.Join(parts, ",") + "}"
	default:
		var parts []string
		for i := r.Intn(5); i > 0; i-- {
			parts = append(parts, randomValue(r, depth-1))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
}

func randomNumber(r *rand.Rand) string {
	var b strings.Builder
	if r.Intn(3) == 0 {
		b.WriteByte('-')
	}
	digits := 1 + r.Intn(25)
	if r.Intn(4) == 0 {
		b.WriteByte('0')
	} else {
		b.WriteByte(byte('1' + r.Intn(9)))
		for i := 1; i < digits; i++ {
			b.WriteByte(byte('0' + r.Intn(10)))
		}
	}
	if r.Intn(3) == 0 {
		b.WriteByte('.')
		for i := 1 + r.Intn(20); i > 0; i-- {
			b.WriteByte(byte('0' + r.Intn(10)))
		}
	}
	if r.Intn(3) == 0 {
		b.WriteByte("eE"[r.Intn(2)])
		if r.Intn(2) == 0 {
			b.WriteByte("+-"[r.Intn(2)])
		}
		fmt.Fprint(&b, r.Intn(420))
	}
	return b.String()
}

var keyWords = []string{"kind", "Kind", "KIND", "apiVersion", "APIVERSION", "apiversion", "\\u212aind", "a", "b", "", "spec", "é", "k\\u0000"}

func randomString(r *rand.Rand) string {
	if r.Intn(3) == 0 {
		return `"` + keyWords[r.Intn(len(keyWords))] + `"`
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := r.Intn(8); i > 0; i-- {
		switch r.Intn(10) {
		case 0:
			fmt.Fprintf(&b, `\u%04x`, []int{0xd800, 0xdbff, 0xdc00, 0xdfff, 0xd83d, 0xde00, 0x2028, 0x0000, 0x001f, 0x00e9, 0xfffd, 0xfeff}[r.Intn(12)])
		case 1:
			b.WriteString([]string{`\n`, `\"`, `\\`, `\/`, `\b`, `\t`}[r.Intn(6)])
		case 2:
			b.WriteString([]string{"é", "😀", "\u2028", "<", ">", "&", "\x7f", "日本"}[r.Intn(8)])
		case 3:
			b.WriteByte(byte(0x80 + r.Intn(0x80)))
		default:
			b.WriteByte(byte('a' + r.Intn(26)))
		}
	}
	b.WriteByte('"')
	return b.String()
}

// mutate changes a few bytes of a document.
func mutate(r *rand.Rand, doc []byte) []byte {
	out := append([]byte(nil), doc...)
	for i := r.Intn(3); i >= 0; i-- {
		if len(out) == 0 {
			return out
		}
		at := r.Intn(len(out))
		switch r.Intn(5) {
		case 0:
			out = out[:at]
		case 1:
			out = append(out[:at], out[at+1:]...)
		case 2:
			out[at] = byte(r.Intn(256))
		case 3:
			ins := ",}][{\": \\\x00\xff1e-."[r.Intn(15)]
			out = append(out[:at], append([]byte{ins}, out[at:]...)...)
		default:
			out = append(out, " x"[r.Intn(2)])
		}
	}
	return out
}

func main() {
	var entries []entry
	for _, s := range handPicked {
		entries = append(entries, record([]byte(s), nil))
	}
	for _, b := range []build{
		{Unit: "[", Close: "]", Count: 10000},
		{Unit: "[", Close: "]", Count: 10001},
		{Prefix: `{"kind":"A","x":`, Unit: `{"a":`, Middle: `1`, Close: `}`, Count: 9999},
		{Prefix: `{"kind":"A","x":`, Unit: `{"a":`, Middle: `1`, Close: `}`, Count: 10000},
		{Unit: `[{"a":`, Middle: `1`, Close: `}]`, Count: 5000},
		{Unit: `[{"a":`, Middle: `{}`, Close: `}]`, Count: 5000},
		{Unit: "[", Close: "", Count: 20000},
		{Unit: "[", Middle: "x", Close: "]", Count: 10000},
	} {
		b := b
		entries = append(entries, record(b.bytes(), &b))
	}
	r := rand.New(rand.NewSource(21))
	for i := 0; i < 3000; i++ {
		doc := []byte(randomValue(r, 4))
		if i%3 != 0 {
			doc = mutate(r, doc)
		}
		entries = append(entries, record(doc, nil))
	}
	out, err := json.MarshalIndent(map[string]interface{}{
		"go":      runtime.Version(),
		"entries": entries,
	}, "", " ")
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(out)
	os.Stdout.Write([]byte("\n"))
}
