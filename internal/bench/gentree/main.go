// Command gentree writes a benchmark tree for internal/bench/bench.sh. DIR
// gets -dirs subdirectories named <prefix>NNN. Each holds -files regular
// files of -size bytes. Contents are pseudo-random and differ per file, so no
// layer below can deduplicate or compress them. The same flags always write
// the same bytes.
//
// DIR must not exist yet: gentree never writes into a tree it did not make.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

func main() {
	dirs := flag.Int("dirs", 1, "subdirectories of DIR")
	files := flag.Int("files", 1, "regular files in each subdirectory")
	size := flag.Int("size", 4096, "bytes in each file")
	prefix := flag.String("prefix", "dir-", "name prefix of the subdirectories")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: gentree [flags] DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *dirs < 1 || *files < 1 || *size < 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := generate(flag.Arg(0), *dirs, *files, *size, *prefix); err != nil {
		fmt.Fprintln(os.Stderr, "gentree:", err)
		os.Exit(1)
	}
}

func generate(root string, dirs, files, size int, prefix string) error {
	if err := os.Mkdir(root, 0o755); err != nil {
		return err
	}
	buf := make([]byte, size)
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("%s%03d", prefix, d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
		for f := range files {
			fill(buf, d, f)
			name := filepath.Join(dir, fmt.Sprintf("file-%04d.md", f))
			if err := os.WriteFile(name, buf, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// fill writes the bytes of file f of directory d.
func fill(buf []byte, d, f int) {
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[0:], uint64(d))
	binary.LittleEndian.PutUint64(seed[8:], uint64(f))
	rand.NewChaCha8(seed).Read(buf)
}
