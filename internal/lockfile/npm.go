package lockfile

// parseNPM reads package-lock.json. Not written yet: every lockfile falls back to the
// whole file.
func parseNPM(data []byte) (*Lockfile, error) {
	return nil, unsupported("package-lock.json", "not read yet")
}
