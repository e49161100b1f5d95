package config

import (
	"errors"

	"github.com/skillwire/skillwire/claude/config/jsonread"
)

// WholeJSON keeps every key of a JSON object, canonical. It is for the
// plugin registries, installed_plugins.json and known_marketplaces.json.
// There what is installed and where it comes from is the whole document.
func WholeJSON(data []byte, size int64) Extract {
	return extractConfig(data, size, MaxJSON, func(r *jsonread.Reader) (map[string]any, error) {
		v, err := r.Value(0)
		if err != nil {
			return nil, err
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, errors.New("not an object")
		}
		return m, nil
	})
}

// KnownMarketplacesKey holds known_marketplaces.json whole in its
// canonical form. Its top-level keys are marketplace names, told as
// marketplaces, never as settings.
const KnownMarketplacesKey = "knownMarketplaces"

// KnownMarketplaces is known_marketplaces.json, canonical, under
// KnownMarketplacesKey.
func KnownMarketplaces(data []byte, size int64) Extract {
	ex := WholeJSON(data, size)
	if ex.Canonical != nil {
		ex.Canonical = canonicalJSON(map[string]any{KnownMarketplacesKey: decodeCanonical(ex.Canonical)})
	}
	return ex
}
