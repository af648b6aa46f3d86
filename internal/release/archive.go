package release

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// fixedTime is the modification time of every file vx packs, so that the
// same inputs give the same bytes (npm pack uses this date too).
var fixedTime = time.Date(1985, 10, 26, 8, 15, 0, 0, time.UTC)

func fileMode(f File) fs.FileMode {
	if f.Exec {
		return 0o755
	}
	return 0o644
}

// writeTarGz writes files, each under prefix, as a gzip-compressed tar.
func writeTarGz(w io.Writer, prefix string, files []File) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		h := &tar.Header{Name: prefix + f.Name, Mode: int64(fileMode(f)), Size: int64(len(f.Data)), ModTime: fixedTime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, prefix string, files []File) error {
	zw := zip.NewWriter(w)
	for _, f := range files {
		h := &zip.FileHeader{Name: prefix + f.Name, Method: zip.Deflate, Modified: fixedTime}
		h.SetMode(fileMode(f))
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.Data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// ReadTarGz returns the regular files of a gzip-compressed tar.
func ReadTarGz(r io.Reader) ([]File, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("release: %w", err)
	}
	tr := tar.NewReader(gz)
	var files []File
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("release: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("release: %w", err)
		}
		files = append(files, File{Name: h.Name, Data: data, Exec: h.Mode&0o111 != 0})
	}
}

// ArchiveName is the release archive of t at version:
// vx_<version>_<goos>_<goarch>.tar.gz, or .zip for Windows.
func ArchiveName(version string, t Target) string {
	ext := ".tar.gz"
	if t.GOOS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("vx_%s_%s_%s%s", version, t.GOOS, t.GOARCH, ext)
}

// WriteArchive writes t's release archive into dir: the binaries (program
// name → file; every one of [Programs]) and the extra files (README) at the
// top level. It returns the archive's path.
func WriteArchive(dir, version string, t Target, binaries map[string]string, extra []File) (string, error) {
	files, err := readBinaries(t, binaries)
	if err != nil {
		return "", fmt.Errorf("release: %s: %w", ArchiveName(version, t), err)
	}
	files = append(files, extra...)
	path := filepath.Join(dir, ArchiveName(version, t))
	return path, writeFileAtomic(path, func(w *os.File) error {
		if t.GOOS == "windows" {
			return writeZip(w, "", files)
		}
		return writeTarGz(w, "", files)
	})
}

// WriteChecksums writes dir/checksums.txt: one "<sha256>  <name>" line per
// file, sorted by name, as sha256sum -c reads it.
func WriteChecksums(dir string, paths []string) (string, error) {
	var lines []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("release: %w", err)
		}
		sum := sha256.Sum256(data)
		lines = append(lines, hex.EncodeToString(sum[:])+"  "+filepath.Base(p))
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i][66:] < lines[j][66:] })
	out := filepath.Join(dir, "checksums.txt")
	return out, writeFileAtomic(out, func(w *os.File) error {
		_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
		return err
	})
}

func writeFileAtomic(path string, write func(*os.File) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("release: writing %q: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("release: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	return os.Rename(tmp.Name(), path)
}
