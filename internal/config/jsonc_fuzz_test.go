package config

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzJSONCAgainstJSON holds the JSONC parser to encoding/json on the
// input both read. Where encoding/json accepts a document, parseJSONC
// accepts it too and reads the same values, except where vx refuses on
// purpose (named in refusedOnPurpose). Whatever parseJSONC accepts,
// comments and trailing commas included, is one JSON value: written out
// again, encoding/json reads back the same. Run briefly:
//
//	go test ./internal/config -run '^$' -fuzz FuzzJSONCAgainstJSON -fuzztime 30s
func FuzzJSONCAgainstJSON(f *testing.F) {
	for _, seed := range []string{
		`{"tasks": {"build": {"dependsOn": ["^build"], "outputs": ["dist/**"]}}}`,
		`[1, -0.5e+10, 0, 1E3, true, false, null, "a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"]`,
		"// comment\n{/* c */\"a\": [1, 2,], \"b\": {},}",
		"\uFEFF{\"é\": \"日本\"}",
		`"\ud800"`, `{"a": 1, "a": 2}`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
		"", " ", "01", "1.", "-", `"a` + "\t" + `"`, "\"\x7f\"", `{"a" 1}`, "[1 2]",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, perr := parseJSONC(data)
		if json.Valid(data) {
			var want any
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber()
			if err := dec.Decode(&want); err != nil {
				t.Fatalf("encoding/json: Valid, then Decode: %v", err)
			}
			if perr != nil {
				if !refusedOnPurpose(perr) {
					t.Fatalf("encoding/json reads %q; parseJSONC refuses it at %d: %s", data, perr.off, perr.msg)
				}
				return
			}
			if got := toAny(n); !reflect.DeepEqual(want, got) {
				t.Fatalf("%q: encoding/json (-) and parseJSONC (+) read different values:\n%s", data, cmp.Diff(want, got))
			}
		}
		if perr != nil || n == nil {
			return
		}
		again, err := json.Marshal(toAny(n))
		if err != nil {
			t.Fatalf("%q: parseJSONC's value cannot be written as JSON: %v", data, err)
		}
		var back any
		dec := json.NewDecoder(bytes.NewReader(again))
		dec.UseNumber()
		if err := dec.Decode(&back); err != nil {
			t.Fatalf("%q: parseJSONC's value, written out, is not JSON: %v\n%s", data, err, again)
		}
		// (reflect first: cmp.Diff takes time exponential in the nesting)
		if got := toAny(n); !reflect.DeepEqual(got, back) {
			t.Fatalf("%q: parseJSONC's value changed through encoding/json (-parsed +reread):\n%s", data, cmp.Diff(got, back))
		}
	})
}

// refusedOnPurpose reports the JSON that vx.json may not hold though
// encoding/json reads it: invalid UTF-8 (which encoding/json replaces),
// half of a surrogate pair in a \u escape (likewise), a key given twice
// (encoding/json keeps the last) and nesting deeper than maxDepth.
func refusedOnPurpose(err *syntaxError) bool {
	for _, why := range []string{"invalid UTF-8", "half of a UTF-16 surrogate pair", "duplicate key", "nested deeper than"} {
		if strings.Contains(err.msg, why) {
			return true
		}
	}
	return false
}

// toAny is n as encoding/json decodes into an any with UseNumber.
func toAny(n *node) any {
	if n == nil {
		return nil
	}
	switch n.kind {
	case kindObject:
		m := map[string]any{}
		for _, mem := range n.members {
			m[mem.key] = toAny(mem.val)
		}
		return m
	case kindArray:
		a := []any{}
		for _, e := range n.elems {
			a = append(a, toAny(e))
		}
		return a
	case kindString:
		return n.str
	case kindNumber:
		return json.Number(n.str)
	case kindBool:
		return n.boolean
	}
	return nil
}
