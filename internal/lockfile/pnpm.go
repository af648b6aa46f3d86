package lockfile

// parsePNPM reads pnpm-lock.yaml. Not written yet: every lockfile falls back to the
// whole file.
func parsePNPM(data []byte) (*Lockfile, error) {
	return nil, unsupported("pnpm-lock.yaml", "not read yet")
}
