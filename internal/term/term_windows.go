package term

import "golang.org/x/sys/windows"

// IsTerminal reports whether fd is a console.
func IsTerminal(fd uintptr) bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(fd), &mode) == nil
}

// SupportsColor reports whether fd is a console that shows ANSI colour
// sequences, turning on virtual terminal processing when the console has it
// off (classic conhost); a console that refuses gets no colour.
func SupportsColor(fd uintptr) bool {
	var mode uint32
	h := windows.Handle(fd)
	if windows.GetConsoleMode(h, &mode) != nil {
		return false
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
