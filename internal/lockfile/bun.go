package lockfile

// parseBun reads bun.lock. Not written yet: every lockfile falls back to the
// whole file.
func parseBun(data []byte) (*Lockfile, error) {
	return nil, unsupported("bun.lock", "not read yet")
}
