package jsconfig

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzTokenize feeds the tokenizer behind config error positions any
// bytes (it sees what esbuild accepted, but must not fall over on what it
// did not) and checks that it ends without a panic, that its tokens come
// in order inside the input, each starting where its text says (an
// identifier or punctuator is its own bytes, a string starts at its
// quote, a template at its backquote or the "}" that resumes it, none on
// a blank or a comment), that input of blanks and comments alone gives
// none, and that locate,
// which walks the tokens, gives an offset inside the input.
func FuzzTokenize(f *testing.F) {
	for _, seed := range []string{
		"",
		"export default { tasks: { build: { dependsOn: ['^build'] } } }",
		"export default defineConfig({ tasks: { \"web#build\": { outputs: [\".next/**\"] } } });",
		"// { comment\n/* } */ export default {a: 1}",
		"const re = /[}{]\"/g, tpl = `a ${ {x: 1}.x } }{ ${`nested ${1}`}`;\nexport default {re}",
		"export const config = { tasks: {} }; export default config",
		"`unterminated ${",
		"'unterminated \\",
		"/* unterminated",
		"a / b / c; x = /re/.test(y) ? 1 : 2",
		"return /x/",
		"\uFEFFexport default {é: 'ü', \"\\u00e9\": `\\``}",
		"...spread => arrow; 0x1F.toString(); 1.5e3",
		"}}}}`${}`{{{{",
		"\xff\xfe\x00 invalid utf-8 \x80",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		toks := tokenize(src)
		s := string(src)
		for i, tok := range toks {
			if tok.off < 0 || tok.off >= len(src) {
				t.Fatalf("token %d %+v: offset outside the input of %d bytes", i, tok, len(src))
			}
			if i > 0 && tok.off <= toks[i-1].off {
				t.Fatalf("token %d %+v does not start after token %d %+v", i, tok, i-1, toks[i-1])
			}
			rest := s[tok.off:]
			switch c := rest[0]; {
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
				t.Fatalf("token %d %+v starts on a blank", i, tok)
			case strings.HasPrefix(rest, "//") || strings.HasPrefix(rest, "/*"):
				t.Fatalf("token %d %+v starts a comment", i, tok)
			}
			switch tok.kind {
			case tokIdent, tokPunct:
				if !strings.HasPrefix(rest, tok.text) {
					t.Fatalf("token %d %+v: the input there is %q", i, tok, rest[:min(len(rest), 20)])
				}
			case tokString:
				if rest[0] != '"' && rest[0] != '\'' {
					t.Fatalf("string token %d %+v starts with %q", i, tok, rest[0])
				}
			case tokOther:
				if tok.text == "`" && rest[0] != '`' && rest[0] != '}' {
					t.Fatalf("template token %d %+v starts with %q", i, tok, rest[0])
				}
				if tok.text == "/re/" && rest[0] != '/' {
					t.Fatalf("regular expression token %d %+v starts with %q", i, tok, rest[0])
				}
			}
		}
		// Without anything but blanks and comments, there is no token.
		if isBlankOrComment(s) && len(toks) > 0 {
			t.Fatalf("%q holds only blanks and comments, and gives tokens %+v", s, toks)
		}
		for _, path := range [][]any{{"tasks"}, {"tasks", "build", "dependsOn", 0}, {"remoteCache", "url"}} {
			for _, key := range []bool{true, false} {
				if at, ok := locate(src, path, key); ok && (at.off < 0 || at.off > len(src)) {
					t.Fatalf("locate(%v, %v) = offset %d, outside the input of %d bytes", path, key, at.off, len(src))
				}
			}
		}
		if !utf8.Valid(src) {
			return
		}
		// The tokens of valid UTF-8 start on character boundaries.
		for i, tok := range toks {
			if !utf8.RuneStart(src[tok.off]) {
				t.Fatalf("token %d %+v starts inside a character", i, tok)
			}
		}
	})
}

// isBlankOrComment reports whether s is blanks and complete comments only.
func isBlankOrComment(s string) bool {
	for s != "" {
		switch {
		case s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r':
			s = s[1:]
		case strings.HasPrefix(s, "//"):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return true
			}
			s = s[i:]
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s[2:], "*/")
			if i < 0 {
				return true
			}
			s = s[i+4:]
		default:
			return false
		}
	}
	return true
}
