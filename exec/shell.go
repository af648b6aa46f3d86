package exec

import (
	"fmt"
	"strings"
)

// shellCommand returns the command line that runs a package.json script
// with extra arguments the way npm runs it. goos selects the rules; batch
// says whether the script's first word names a batch file (.cmd or .bat).
// It touches nothing outside its arguments.
//
// shell is the name of the shell program to find in the child's PATH, and
// argv its full argument list, argv[0] being shell:
//
//   - On every OS but Windows: shell "sh" and argv {"sh", "-c", line}, where
//     line is the script followed by each argument, single-quoted unless it
//     is made only of characters no POSIX shell treats specially (letters,
//     digits and "@%+=:,./-_"); an embedded single quote closes the quoted
//     text, is written as \' and reopens it. The script itself is not
//     quoted: it is shell code.
//   - On Windows: shell "cmd.exe" and argv {"cmd.exe", "/d", "/e:ON",
//     "/v:OFF", "/s", "/c", `"` + line + `"`}. These elements form the
//     command line verbatim, joined by spaces and never quoted again:
//     cmd.exe parses its own command line. Each argument of line is quoted
//     for the program's argument parser (the rules of CommandLineToArgvW)
//     and then every cmd.exe metacharacter of the result (space, tab and
//     !^&()<>|") is escaped with ^. When the script's first word names a
//     batch file (.cmd or .bat), the carets are applied twice, because
//     cmd.exe parses the arguments again when the batch file expands %*.
//     A caret does not stop cmd.exe from expanding %NAME% on its command
//     line (it expands variables before it reads carets or quotes), so each
//     % of an argument is written %%cd:~,% instead, as Rust's standard
//     library does since CVE-2024-24576 (BatBadBut): %cd:~,% is an empty
//     substring of the always-defined CD variable, so the % stays and no
//     variable name can form with what follows. The substring syntax needs
//     command extensions, hence /e:ON whatever the registry says; /v:OFF
//     keeps delayed expansion from reading !NAME! in arguments; /d skips
//     AutoRun commands. With /s, cmd.exe removes exactly the outer quotes
//     added here, so a script that starts with a quoted program path keeps
//     its quotes (npm leaves the line unquoted, which breaks such scripts).
//     A line break cannot pass through cmd.exe inside an argument (it ends
//     the command): [Resolve] refuses such an argument.
//
// [Resolve] finds the shell in the child's PATH (on Windows the child's
// ComSpec first) and decides the batch-file case by looking the first word
// up in the child's PATH, as npm does.
func shellCommand(script string, args []string, goos string, batch bool) (string, []string) {
	var b strings.Builder
	b.WriteString(script)
	if goos != "windows" {
		for _, a := range args {
			b.WriteByte(' ')
			b.WriteString(shQuotePOSIX(a))
		}
		return "sh", []string{"sh", "-c", b.String()}
	}
	for _, a := range args {
		b.WriteByte(' ')
		b.WriteString(shQuoteCmd(a, batch))
	}
	return "cmd.exe", []string{"cmd.exe", "/d", "/e:ON", "/v:OFF", "/s", "/c", `"` + b.String() + `"`}
}

// shQuotePOSIX quotes a for sh.
func shQuotePOSIX(a string) string {
	if a == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(a); i++ {
		c := a[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("@%+=:,./-_", c) >= 0) {
			safe = false
			break
		}
	}
	if safe {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// shQuoteCmd quotes a for the program's argument parser, then escapes it
// for cmd.exe: carets, twice when the program is a batch file, and each %
// as %%cd:~,%, once (cmd.exe expands variables on its command line only;
// the text a batch file's %* inserts is not expanded again).
func shQuoteCmd(a string, batch bool) string {
	q := shCaret(shQuoteArgv(a))
	if batch {
		q = shCaret(q)
	}
	return strings.ReplaceAll(q, "%", "%%cd:~,%")
}

// shCmdArgError reports an argument cmd.exe cannot pass on: one holding a
// line break, which ends cmd.exe's command there.
func shCmdArgError(args []string) error {
	for i, a := range args {
		if strings.ContainsAny(a, "\r\n") {
			return fmt.Errorf("exec: argument %d, %q, holds a line break, which cmd.exe cannot pass to a script (the command would end there)", i+1, a)
		}
	}
	return nil
}

// shQuoteArgv quotes a so that CommandLineToArgvW (and the C runtime) reads
// it back as one argument: it is wrapped in double quotes when empty or when
// it holds white space or a quote; inside the quotes a quote is preceded by
// a backslash, and backslashes are doubled where they precede a quote or
// the closing quote.
func shQuoteArgv(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\n\v\"") {
		return a
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(a); i++ {
		switch c := a[i]; c {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, 2*slashes+1))
			b.WriteByte('"')
			slashes = 0
		default:
			b.WriteString(strings.Repeat(`\`, slashes))
			b.WriteByte(c)
			slashes = 0
		}
	}
	b.WriteString(strings.Repeat(`\`, 2*slashes))
	b.WriteByte('"')
	return b.String()
}

// shCaret escapes with ^ the characters cmd.exe would interpret, but %
// (see shQuoteCmd).
func shCaret(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(" \t!^&()<>|\"", s[i]) >= 0 {
			b.WriteByte('^')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// shFirstWord returns the program name a Windows script starts with: up to
// the first white space or cmd.exe operator outside double quotes, with the
// quotes removed.
func shFirstWord(script string) string {
	script = strings.TrimLeft(script, " \t")
	var b strings.Builder
	quoted := false
	for i := 0; i < len(script); i++ {
		c := script[i]
		if c == '"' {
			quoted = !quoted
			continue
		}
		if !quoted && strings.IndexByte(" \t&|<>", c) >= 0 {
			break
		}
		b.WriteByte(c)
	}
	return b.String()
}

// shIsBatch reports whether name ends in .cmd or .bat, in any case.
func shIsBatch(name string) bool {
	ext := strings.ToLower(lpExt(name))
	return ext == ".cmd" || ext == ".bat"
}
