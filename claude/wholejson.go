package claude

import "errors"

// WholeJSON keeps every key of a JSON object, canonical: for the plugin
// registries (installed_plugins.json, known_marketplaces.json), where what
// is installed and where it comes from is the whole document.
func WholeJSON(data []byte, size int64) Extract {
	return extractConfig(data, size, MaxConfigJSON, func(r *configReader) (map[string]any, error) {
		v, err := r.value(0)
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
