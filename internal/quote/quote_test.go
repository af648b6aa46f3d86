package quote

import "testing"

func TestNameAndQ(t *testing.T) {
	tests := []struct {
		in, name, q string
	}{
		{"web#build", "web#build", `"web#build"`},
		{"@scope/ui", "@scope/ui", `"@scope/ui"`},
		{"café", "café", `"café"`},
		{"日本語", "日本語", `"日本語"`},
		{"with space", "with space", `"with space"`},
		{`C:\repo\web`, `C:\repo\web`, `"C:\repo\web"`},
		{`say "hi"`, `"say \"hi\""`, `"say \"hi\""`},
		{"", "", `""`},
		{"a\x1b[2K\rFAKE#t | injected\n", `"a\x1b[2K\rFAKE#t | injected\n"`, `"a\x1b[2K\rFAKE#t | injected\n"`},
		{"tab\there", `"tab\there"`, `"tab\there"`},
		{"del\x7f", `"del\x7f"`, `"del\x7f"`},
		{"c1\u009bx", `"c1\u009bx"`, `"c1\u009bx"`},
		{"bidi\u202egnp.exe", `"bidi\u202egnp.exe"`, `"bidi\u202egnp.exe"`},
		{"zwj\u200dx", `"zwj\u200dx"`, `"zwj\u200dx"`},
		{"line\u2028sep", `"line\u2028sep"`, `"line\u2028sep"`},
		{"nbsp\u00a0x", `"nbsp\u00a0x"`, `"nbsp\u00a0x"`},
		{"bad\xffutf8", `"bad\xffutf8"`, `"bad\xffutf8"`},
	}
	for _, tt := range tests {
		if got := Name(tt.in); got != tt.name {
			t.Errorf("Name(%q) = %s, want %s", tt.in, got, tt.name)
		}
		if got := Q(tt.in); got != tt.q {
			t.Errorf("Q(%q) = %s, want %s", tt.in, got, tt.q)
		}
	}
}

// TestText: a message is shown as it is, double quotes and all, unless it
// holds what a terminal acts on: then it is one quoted, escaped line.
func TestText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`expected "]" but found "2"`, `expected "]" but found "2"`},
		{"RangeError: no é", "RangeError: no é"},
		{"boom\x1b[2J\x1b[Hvx: all tasks passed\n", `"boom\x1b[2J\x1b[Hvx: all tasks passed\n"`},
		{"two\nlines", `"two\nlines"`},
		{"bidi\u202e", `"bidi\u202e"`},
	} {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestWidth(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"web#build", 9},
		{"café", 4},
		{"cafe\u0301", 4}, // combining acute accent
		{"日本", 4},
		{"ｗｅｂ", 6}, // fullwidth
		{"한국어", 6},
		{"🚀x", 3},
		{"bad\xff", 4},
	}
	for _, tt := range tests {
		if got := Width(tt.in); got != tt.want {
			t.Errorf("Width(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
