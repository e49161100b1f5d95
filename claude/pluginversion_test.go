package claude

import (
	"strings"
	"testing"
)

func TestAnInstallPathNamesAVersionFolderOnlyByItsExactText(t *testing.T) {
	r := Root{Path: "/cfg/plugins/cache", Kind: Plugins}
	for _, tc := range []struct {
		path string
		want string // "" for none
	}{
		{"/cfg/plugins/cache/mkt/plug/1.0.0", "mkt/plug/1.0.0"},
		{"/cfg/plugins/cache/mkt/plug/1.0.0/", ""},
		{"/cfg/plugins/cache/mkt/plug", ""},
		{"/cfg/plugins/cache/mkt/plug/1.0.0/x", ""},
		{"/cfg/plugins/cache/mkt/../plug/1.0.0", ""},
		{"/cfg/plugins/cache/mkt/./1.0.0", ""},
		{"/cfg/plugins/cache/mkt//1.0.0", ""},
		{"/cfg/plugins/cache2/mkt/plug/1.0.0", ""},
		{"/cfg/plugins/cache/../cache/mkt/plug/1.0.0", ""},
		{"cfg/plugins/cache/mkt/plug/1.0.0", ""},
		{"/cfg/plugins/cache/mkt/plug/1.0.0\x00", ""},
		{"/cfg/plugins/cache/m\x1bkt/p\nlug/\u202e1", "m\x1bkt/p\nlug/\u202e1"}, // a name, gated when shown
		{"", ""},
		{strings.Repeat("/a", 1<<16), ""},
	} {
		v, ok := r.VersionAt(tc.path)
		if ok != (tc.want != "") || ok && string(v) != tc.want {
			t.Errorf("VersionAt(%q) = %q, %v; want %q", tc.path, v, ok, tc.want)
		}
	}
	if _, ok := (Root{Path: "/cfg/plugins/cache", Kind: Skills}).VersionAt("/cfg/plugins/cache/mkt/plug/1.0.0"); ok {
		t.Error("a skills root names a plugin version")
	}
}

func TestTwoFoldersAreOnePluginOnlyWithTheSameMarketplaceAndPlugin(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"mkt/plug/1.0.0", "mkt/plug/2.0.0", true},
		{"mkt/plug/1.0.0", "mkt/plug/1.0.0", true},
		{"mkt/plug/1.0.0", "mkt/other/1.0.0", false},
		{"mkt/plug/1.0.0", "evil/plug/1.0.0", false},
		{"mkt/plug", "mkt/plug/1.0.0", false},
		{"mkt/plug/1.0.0/x", "mkt/plug/1.0.0", false},
		{"mkt/plug/..", "mkt/plug/1", false},
	} {
		if got := SamePlugin([]byte(tc.a), []byte(tc.b)); got != tc.same {
			t.Errorf("SamePlugin(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
	if k, ok := PluginKey([]byte("mkt/plug/1.0.0")); !ok || k != "plug@mkt" {
		t.Errorf("PluginKey = %q, %v", k, ok)
	}
	if r, ok := (Root{Path: "/cfg/plugins/cache", Kind: Plugins}).Registry(); !ok || r != "/cfg/plugins" {
		t.Errorf("Registry = %q, %v", r, ok)
	}
}
