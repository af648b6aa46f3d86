package guard

import "strings"

// samePathText compares two cleaned absolute paths as text. Windows file
// names are case-insensitive.
func samePathText(a, b string) bool { return strings.EqualFold(a, b) }
