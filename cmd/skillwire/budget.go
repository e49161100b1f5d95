package main

import (
	"os"
	"strconv"

	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
)

func lookupEnv(k string) (string, bool) { return os.LookupEnv(k) }

// budgetFlags are --max-entries and --max-bytes, which override
// SKILLWIRE_MAX_ENTRIES and SKILLWIRE_MAX_BYTES, which override the
// defaults. Every entry point reads the same variables.
type budgetFlags struct {
	entries, bytes int64
}

// The defaults in the help are the walker's own: a help text that spells
// them drifts (it said 100000 while the walker used 50000).
func (b *budgetFlags) add(cmd *cobra.Command) {
	cmd.Flags().Int64Var(&b.entries, "max-entries", 0, "shared entry budget of the scan (default from SKILLWIRE_MAX_ENTRIES, else "+
		strconv.FormatInt(walker.DefaultBudget.MaxEntries, 10)+")")
	cmd.Flags().Int64Var(&b.bytes, "max-bytes", 0, "shared byte budget of the scan (default from SKILLWIRE_MAX_BYTES, else "+
		sizeText(walker.DefaultBudget.MaxBytes)+")")
}

// sizeText spells n bytes in the largest binary unit that divides it.
func sizeText(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n > 0 && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

func (b *budgetFlags) config(cmd *cobra.Command, s *streams) (walker.Config, error) {
	cfg, err := envConfig(s)
	if err != nil {
		return cfg, err
	}
	for _, v := range []struct {
		flag string
		val  int64
		dst  *int64
	}{
		{"max-entries", b.entries, &cfg.MaxEntries},
		{"max-bytes", b.bytes, &cfg.MaxBytes},
	} {
		if cmd.Flags().Changed(v.flag) {
			if v.val < 0 {
				return cfg, fail(exitUsage, "--%s must not be negative", v.flag)
			}
			*v.dst = v.val
		}
	}
	return cfg, nil
}

// envConfig is the default configuration with SKILLWIRE_MAX_ENTRIES and
// SKILLWIRE_MAX_BYTES applied: what every entry point, the hook included,
// starts from.
func envConfig(s *streams) (walker.Config, error) {
	cfg := walker.DefaultConfig()
	for _, v := range []struct {
		env string
		dst *int64
	}{
		{"SKILLWIRE_MAX_ENTRIES", &cfg.MaxEntries},
		{"SKILLWIRE_MAX_BYTES", &cfg.MaxBytes},
	} {
		if e, ok := s.getenv(v.env); ok && e != "" {
			n, err := strconv.ParseInt(e, 10, 64)
			if err != nil || n < 0 {
				return cfg, fail(exitUsage, "%s must be a non-negative whole number", v.env)
			}
			*v.dst = n
		}
	}
	return cfg, nil
}
