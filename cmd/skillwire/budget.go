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

func (b *budgetFlags) add(cmd *cobra.Command) {
	cmd.Flags().Int64Var(&b.entries, "max-entries", 0, "shared entry budget of the scan (default from SKILLWIRE_MAX_ENTRIES, else 100000)")
	cmd.Flags().Int64Var(&b.bytes, "max-bytes", 0, "shared byte budget of the scan (default from SKILLWIRE_MAX_BYTES, else 1 GiB)")
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
