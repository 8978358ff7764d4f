//go:debug default=go1.27

// Command gen records what Go's net/url does with a large set of strings, as the corpus
// kubegen-core's port (checks/go_url.rs) is checked against. For every input it records
// url.ParseRequestURI and url.Parse: the error text, or every field of the URL and what
// Hostname, Port, EscapedPath, Query and String return.
//
// The inputs: hand-picked ones for every branch of the parser (schemes, opaque URLs,
// authorities, userinfo, bracketed hosts with zones, ports, strict colons for http and
// https, escapes in every component, control characters, non-ASCII, the query parameter
// limit), seeded combinations of URL parts, and seeded random strings over the characters
// the parser treats specially.
//
// kube-apiserver v1.36.2 is built with go1.27.3 and no GODEBUG overrides for net/url
// (`go version -m kube-apiserver`), so http and https hosts get strict colons and a query at
// most 10000 parameters; the directive below keeps those defaults should a newer toolchain
// run this. Run from runtime/core/src/checks:
//
//	go run testdata/url/gen.go > testdata/url/corpus.json
package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math/rand"
	"net/url"
	"os"
	"runtime"
	"sort"
	"strings"
	"unicode/utf8"
)

// text is a Go string in JSON: as is when it is UTF-8, else {"hex": ...}.
func text(s string) interface{} {
	if utf8.ValidString(s) {
		return s
	}
	return map[string]string{"hex": hex.EncodeToString([]byte(s))}
}

type user struct {
	Username interface{} `json:"username"`
	Password interface{} `json:"password,omitempty"`
}

// result is a parsed URL, or the error.
type result struct {
	Error       string        `json:"error,omitempty"`
	Scheme      string        `json:"scheme,omitempty"`
	Opaque      string        `json:"opaque,omitempty"`
	User        *user         `json:"user,omitempty"`
	Host        interface{}   `json:"host,omitempty"`
	Path        interface{}   `json:"path,omitempty"`
	RawPath     string        `json:"raw_path,omitempty"`
	OmitHost    bool          `json:"omit_host,omitempty"`
	ForceQuery  bool          `json:"force_query,omitempty"`
	RawQuery    string        `json:"raw_query,omitempty"`
	Fragment    interface{}   `json:"fragment,omitempty"`
	RawFragment string        `json:"raw_fragment,omitempty"`
	Hostname    interface{}   `json:"hostname,omitempty"`
	Port        string        `json:"port,omitempty"`
	EscapedPath string        `json:"escaped_path,omitempty"`
	Query       []interface{} `json:"query,omitempty"`
	String      string        `json:"string,omitempty"`
}

// nonEmpty is text(s), or nil (omitted) for "".
func nonEmpty(s string) interface{} {
	if s == "" {
		return nil
	}
	return text(s)
}

func describe(u *url.URL, err error) result {
	if err != nil {
		return result{Error: err.Error()}
	}
	r := result{
		Scheme:      u.Scheme,
		Opaque:      u.Opaque,
		Host:        nonEmpty(u.Host),
		Path:        nonEmpty(u.Path),
		RawPath:     u.RawPath,
		OmitHost:    u.OmitHost,
		ForceQuery:  u.ForceQuery,
		RawQuery:    u.RawQuery,
		Fragment:    nonEmpty(u.Fragment),
		RawFragment: u.RawFragment,
		Hostname:    nonEmpty(u.Hostname()),
		Port:        u.Port(),
		EscapedPath: u.EscapedPath(),
		String:      u.String(),
	}
	if u.User != nil {
		r.User = &user{Username: text(u.User.Username())}
		if p, ok := u.User.Password(); ok {
			r.User.Password = text(p)
		}
	}
	// Query as [key, [values...]] pairs, sorted by key.
	q := u.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		values := []interface{}{}
		for _, v := range q[k] {
			values = append(values, text(v))
		}
		r.Query = append(r.Query, []interface{}{text(k), values})
	}
	return r
}

type build struct {
	Prefix string `json:"prefix"`
	Unit   string `json:"unit"`
	Count  int    `json:"count"`
}

type entry struct {
	Input   string `json:"input"`
	Build   *build `json:"build,omitempty"`
	Request result `json:"request"`
	Parse   result `json:"parse"`
}

func record(s string, b *build) entry {
	e := entry{Input: s, Build: b}
	e.Request = describe(url.ParseRequestURI(s))
	e.Parse = describe(url.Parse(s))
	if b != nil {
		// A built input is long: its raw query and String are left out (the test skips them).
		e.Input = ""
		for _, r := range []*result{&e.Request, &e.Parse} {
			r.RawQuery, r.String = "", ""
		}
	}
	return e
}

var handPicked = []string{
	// Empty, "*", slashes.
	"", "*", "**", "/*", "/", "//", "///", "////", "//h", "//h/p", "///p", "//h:80", "//u@h",
	"?", "#", "?#", "#?", "??", "?a", "#f", "/?", "/#", "/??", "/?a?b", "/?a#b", "/#a?b",
	// Schemes.
	"http:", "http:/", "http://", "http:///", "http:////x", "http://h", "HTTP://H",
	"HtTp://Example.COM/Path", "a:", ":", ":x", "://h", "1http://h", "h+t.t-p://h", "a1+-.:x",
	"-a:x", "1a:x", "+a:x", ".a:x", "a_b:x", "a b:x", "é:x", "a%3Ab:x", "x:y:z", "a:/b:c",
	// Opaque and relative.
	"mailto:a@b", "mailto:a@b?subject=x#frag", "mailto:", "urn:isbn:0451450523", "news:comp.lang",
	"http:h", "http:h/p", "http:%zz", "http:?", "http:#", "http:?a=1", "http:h?a#f", "tel:+1-201",
	"rel/path", "rel:path", "./a:b", "a/b:c", "rel/a?b#c", "a", ".", "..", "../a", "./a", "a b",
	"example.com", "example.com:80", "example.com/x", "localhost:8080/x", "data:text/plain,hi",
	"javascript:alert(1)", "file:///etc/passwd", "file://h/p", "file:/p", "file:p",
	// Query and fragment splitting.
	"http://h?", "http://h??", "http://h?a?", "http://h?a??", "http://h/?", "http://h/p?q#f",
	"http://h#f?q", "http://h/#", "http://h/p#", "http://h/p#%zz", "http://h/p#%41",
	"http://h/p#a%20b", "http://h/p#a b", "http://h/p#a#b", "http://h/p#%", "http://h/p#%2",
	"http://h/p#é", "http://h/p#%e9", "http://h/p#%ff", "http://h/p#a!()*'b", "http://h/p#a/b?c",
	"http://h/p#[x]", "http://h/p#%5B%5D", "http://h/p#%2F", "http://h/p#a+b", "http://h?x#%zz",
	"http://h?%zz", "http://h?%", "http://h?a b", "http://h?é", "http://h?[]", "http://h?#",
	"http://h/?#", "/p?#", "/p#?", "http://h#", "http://h#/", "http://h/p?q?r#f#g",
	// Hosts.
	"http://[::1]", "http://[::1]/", "http://[::1]:80", "http://[::1]:80/p", "http://[::1]:",
	"http://[::1]x", "http://[::1]:x", "http://[::1]:80x", "http://[::1", "http://[::1/p",
	"http://::1", "https://::1/", "ftp://::1/", "HTTP://::1/", "http://a:b:80", "https://a:80:80",
	"ftp://a:80:80", "ws://a:b:c", "postgres://h1:5432,h2:5433/db", "mongodb://h1:1,h2:2/x",
	"http://h1:1,h2:2/x", "http://[fe80::1%25en0]", "http://[fe80::1%25en0]:8080/",
	"http://[fe80::1%en0]", "http://[fe80::1%25]", "http://[fe80::1%25%65n0]",
	"http://[fe80::1%25%0a]", "http://[fe80::1%25a%20b]", "http://[fe80::1%25a b]",
	"http://[fe80::1%25a%2fb]", "http://[fe80::1%25a%25b]", "http://[fe80::1%25a%zzb]",
	"http://[fe80::1%25é]", "http://[fe80::1%25%c3%a9]", "http://[fe80::1%25a<b>]",
	"http://[fe80::1%25a%3Cb]", "http://[fe80::1%25a|b]", "http://[fe80::1%2525]",
	"http://[1.2.3.4]", "http://[::ffff:1.2.3.4]", "http://[::ffff:1.2.3.4]:443",
	"http://[v1.fe]", "http://[x]", "http://[]", "http://[]:80", "http://a[::1]",
	"http://[::1]]", "http://[::1][", "http://[[::1]]", "http://[::%31]", "http://[%3a%3a1]",
	"http://[::1%2]", "http://[::1%25%]", "http://[::g]", "http://[1:2:3:4:5:6:7:8:9]",
	"http://[1::2::3]", "http://[::1.2.3]", "http://[01.2.3.4]", "http://[::1]:80:80",
	"http://[2001:db8::1]:65535/", "http://[2001:DB8::1]", "http://[%e9]", "http://[%ff]",
	"http://1.2.3.4", "http://1.2.3.4:80", "http://01.2.3.4", "http://256.1.1.1",
	"http://%41", "http://%c3%a9", "http://%C3%A9.com/", "http://%zz", "http://h%",
	"http://h%2", "http://a%25b", "http://a%20b", "http://a%7f", "http://a%80", "http://%ff",
	"http://a b", "http://a<b>", "http://a\"b", "http://a{b", "http://a|b", "http://a`b",
	"http://a^b", "http://a\\b", "http://a'b", "http://a!$&'()*+,;=b", "http://a~b_c-d.e",
	"http://é.com", "http://ü.de/ö?ä=ß#é", "http://xn--e.com", "http://日本.jp:8080/p",
	"http://h:", "http://h:80", "http://h:080", "http://h:65536", "http://h:99999999999",
	"http://h:-1", "http://h: 80", "http://h:8a", "http://h:%38%30", "http://:80", "http://:",
	"http://:/", "http://H.EXAMPLE.COM:443", "http://h.:80", "http://.h",
	// Userinfo.
	"http://@", "http://@h", "http://@h/p", "http://u@h", "http://u:p@h", "http://u:@h",
	"http://:p@h", "http://:@h", "http://u:p:q@h", "http://u@v@h", "http://u%40v@h",
	"http://u%zz@h", "http://u:p%zz@h", "http://u%@h", "http://u p@h", "http://é@h",
	"http://u%c3%a9:p%ff@h", "http://u/@h", "http://u?@h", "http://u#@h", "http://[::1]@h",
	"http://u!$&'()*+,;=~._-:p@h", "http://u<@h", "http://u@h:80", "http://u@[::1]:80",
	"http://u@h:x", "http://u@", "http://u:p@", "http://u@:80", "https://user@hooks.example.com",
	"https://@hooks.example.com", "http://u%3Ap@h", "http://u+v@h", "http://u@h@i/p",
	// Paths.
	"/a b", "/a%20b", "/a%2fb", "/a%2Fb", "/%zz", "/%", "/%2", "/%e9", "/%E9", "/é", "/a?b",
	"/a;b", "/a,b", "/a:b", "/a@b", "/a!$&'()*+,;=b", "/[x]", "/a%5Bb", "/~user", "/a%7e",
	"/a%7E", "/a+b", "/a%2Bb", "/%00", "/%7f", "/%41%42", "/%ff", "/a%", "/a%%41", "/a<b>",
	"/a\"b", "/a{b}", "/a|b", "/a\\b", "/a^b", "/a`b", "/a%3Fb", "/a%23b", "/a#b", "/€",
	"/%e2%82%ac", "/%e2%82", "/a/./b/../c", "//a/b", "///a", "/a//b", "/a/", "/ ", "/%20",
	"http://h/a b", "http://h/a%20b", "http://h/a%2fb", "http://h/%zz", "http://h/%",
	"http://h/é", "http://h/*", "http://h/a:b", "http://h//p", "http:/p", "http:/p/q",
	"http:/%zz", "http:/a b", "http:/?q", "http:/#f", "HTTPS:/x", "http:///p", "http:////p",
	"https://h/a%2Fb%2fc", "https://h/%7Euser", "https://h/a%3Bb", "http://h/a%2B",
	// String() escapes the first slash of a path that would read back as an authority.
	"http:/%2Fé", "http:/%2F%2Fh/a b", "x:/%2f%2fh/p", "http:/%2F", "/%2F%2Fh/a b",
	// And writes "./" before a relative path whose first segment would read as a scheme.
	"a%3Ab c", "a%3Ab", "%3A b/c", "a/b%3A c",
	// Queries as Query() reads them.
	"/?a=1&b=2&a=3", "/?a", "/?a=", "/?=b", "/?&&", "/?&a&", "/?a=1;b=2", "/?a%3Bb=1",
	"/?a+b=c+d", "/?a%2Bb=%20", "/?%zz=1&b=2", "/?a=%zz&b=2", "/?a=%e9", "/?a=%ff", "/?%ff=1",
	"/?a=1&a=2&a=", "/?a==b", "/?a=b=c", "/?a=1&;&b=2", "/?;", "/?a=b;c", "/?é=ü",
	"/?a=%", "/?%=a", "/?a=%2", "/?a%26b=c%3Dd", "/?a=1&A=2", "/?b=1&a=2&b=3&a=4",
	"/?a=1#f", "http://h/p?x=1&x=2&y=%20&z", "http://h?a=1&b", "mailto:a@b?a=1&b=2",
	"http://h?+=+", "http://h?%2B=%2b", "/?a=1&&b=2", "/?a=b&c", "/?a[]=1&a[]=2",
	// Control characters and spaces.
	"\x00", "\x1f", "\x7f", "http://h/\x01", "http://h/\x7f", "http://h#\x01", "http://h?\x01",
	"http://h\t", "http://h/\n", "\thttp://h", "/a\rb", " http://h", "http://h ", "http ://h",
	"http: //h", "http:// h", " ", "/ a", "http://h/%01", "http://h/%0a", "http://h#%00",
	"http://h/\u0080", "http://h/\u00a0", "http://h/\u2028", "http://h/\ufeff",
	// Webhook URLs.
	"https://127.0.0.1:9443", "https://hooks.example.com/a/b/", "https://hooks.example.com?",
	"https://hooks.example.com#", "http://127.0.0.1:9443", "https://hooks.example.com?a=b",
	"https://hooks.example.com#top", "not a url", "https://host:port", "https://h:9443/prefix/",
	"HTTPS://host", "https://[::1]:9443/hook", "https:host", "https:/host", "https://",
	"https:///x", "https://user@/x", "https://:80", "https://h/%zz", "x://h",
	"https://github.com/kubernetes/enhancements/pull/1111", "//github.com/x", "github.com/x",
}

// Parts the seeded combinations are made of.
var (
	schemes     = []string{"", "http:", "https:", "HTTPS:", "ftp:", "x-y+z.1:", "mailto:", "1a:", ":"}
	authorities = []string{"", "//", "///", "//h", "//H.com", "//h:80", "//h:", "//h:x", "//u@h",
		"//u:p@h", "//@h", "//[::1]", "//[::1]:443", "//[fe80::1%25eth0]", "//[x]", "//a:b:c",
		"//%41", "//%c3%a9", "//é", "//a b", "//u%zz@h", "//[::1", "//h]", "//h[", "//:8080"}
	paths = []string{"", "/", "/p", "p", "/a/b", "/a b", "/a%20b", "/a%2Fb", "/%zz", "/é", "/%e9",
		"/*", "a:b", "/a:b", "//x", "/a;b=c", "/~u", "/%", "/a+b", "/[]", "/%ff%fe"}
	queries   = []string{"", "?", "?a=1", "?a=1&a=2&b", "?a+b=%20", "?%zz=1&c=2", "?a;b", "?é=%e9", "??", "?a=%ff"}
	fragments = []string{"", "#", "#f", "#a b", "#%zz", "#%41", "#é", "#a#b", "#?q", "#%ff"}
	// The characters the parser gives a meaning to, and some it does not.
	alphabet = []string{":", "/", "?", "#", "[", "]", "@", "%", "%2", "%25", "%41", "%zz", "%e9",
		"%ff", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=", "<", ">", "\"", "{", "}",
		"|", "\\", "^", "`", " ", "~", "-", ".", "_", "a", "Z", "0", "9", "f", "é", "\x01", "\x7f",
		"http", "://", "::", "80", "h"}
)

func pick(r *rand.Rand, parts []string) string {
	return parts[r.Intn(len(parts))]
}

func main() {
	var entries []entry
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			entries = append(entries, record(s, nil))
		}
	}
	for _, s := range handPicked {
		add(s)
	}
	// The query parameter limit (10000): a query of exactly that many, and one more.
	for _, b := range []build{
		{Prefix: "/?a=1", Unit: "&", Count: 9999},
		{Prefix: "/?a=1", Unit: "&", Count: 10000},
		{Prefix: "http://h/?a=1", Unit: "&b", Count: 10000},
	} {
		b := b
		entries = append(entries, record(b.Prefix+strings.Repeat(b.Unit, b.Count), &b))
	}
	r := rand.New(rand.NewSource(27))
	for i := 0; i < 250; i++ {
		add(pick(r, schemes) + pick(r, authorities) + pick(r, paths) + pick(r, queries) + pick(r, fragments))
	}
	for i := 0; i < 250; i++ {
		var b strings.Builder
		if i%2 == 0 {
			b.WriteString(pick(r, schemes))
		}
		for n := r.Intn(12); n > 0; n-- {
			b.WriteString(pick(r, alphabet))
		}
		add(b.String())
	}
	// One entry a line; SetEscapeHTML(false) keeps <, > and & readable.
	os.Stdout.WriteString("{\"go\": \"" + runtime.Version() + "\", \"entries\": [\n")
	for i, e := range entries {
		var line bytes.Buffer
		enc := json.NewEncoder(&line)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(e); err != nil {
			panic(err)
		}
		os.Stdout.Write(bytes.TrimSuffix(line.Bytes(), []byte("\n")))
		if i < len(entries)-1 {
			os.Stdout.WriteString(",")
		}
		os.Stdout.WriteString("\n")
	}
	os.Stdout.WriteString("]}\n")
}
