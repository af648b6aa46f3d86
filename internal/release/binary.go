package release

import (
	"bytes"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"fmt"
	"io"
)

// CheckBinary reports whether r holds an executable for goos/goarch: an ELF
// file on Linux, a Mach-O file on macOS, a PE file on Windows, built for the
// architecture's machine type.
func CheckBinary(r io.ReaderAt, goos, goarch string) error {
	got, err := binaryPlatform(r)
	if err != nil {
		return err
	}
	if want := goos + "/" + goarch; got != want {
		return fmt.Errorf("release: the binary is built for %s, not %s", got, want)
	}
	return nil
}

// binaryPlatform names the platform an executable was built for, as
// "goos/goarch", from its headers alone.
func binaryPlatform(r io.ReaderAt) (string, error) {
	var magic [4]byte
	if _, err := r.ReadAt(magic[:], 0); err != nil {
		return "", fmt.Errorf("release: not an executable: %w", err)
	}
	switch {
	case bytes.Equal(magic[:], []byte(elf.ELFMAG)):
		f, err := elf.NewFile(r)
		if err != nil {
			return "", fmt.Errorf("release: bad ELF file: %w", err)
		}
		if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
			return "", fmt.Errorf("release: ELF file of type %v is not an executable", f.Type)
		}
		arch, ok := map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64", elf.EM_386: "386", elf.EM_ARM: "arm"}[f.Machine]
		if !ok {
			return "", fmt.Errorf("release: ELF file for unknown machine %v", f.Machine)
		}
		goos := "linux"
		if f.OSABI == elf.ELFOSABI_FREEBSD {
			goos = "freebsd"
		}
		return goos + "/" + arch, nil
	case magic[0] == 'M' && magic[1] == 'Z':
		f, err := pe.NewFile(r)
		if err != nil {
			return "", fmt.Errorf("release: bad PE file: %w", err)
		}
		if f.Characteristics&pe.IMAGE_FILE_EXECUTABLE_IMAGE == 0 || f.Characteristics&pe.IMAGE_FILE_DLL != 0 {
			return "", fmt.Errorf("release: PE file is not an executable image")
		}
		arch, ok := map[uint16]string{pe.IMAGE_FILE_MACHINE_AMD64: "amd64", pe.IMAGE_FILE_MACHINE_ARM64: "arm64", pe.IMAGE_FILE_MACHINE_I386: "386"}[f.Machine]
		if !ok {
			return "", fmt.Errorf("release: PE file for unknown machine %#x", f.Machine)
		}
		return "windows/" + arch, nil
	default:
		f, err := macho.NewFile(r)
		if err != nil {
			return "", fmt.Errorf("release: not an ELF, Mach-O or PE executable")
		}
		if f.Type != macho.TypeExec {
			return "", fmt.Errorf("release: Mach-O file of type %v is not an executable", f.Type)
		}
		arch, ok := map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}[f.Cpu]
		if !ok {
			return "", fmt.Errorf("release: Mach-O file for unknown CPU %v", f.Cpu)
		}
		return "darwin/" + arch, nil
	}
}
