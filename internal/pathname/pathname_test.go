package pathname

import "testing"

func TestParentCutsTheLastComponentAsText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/a/b", "/a"},
		{"/a", "/"},
		{"/", "/"},
		{"a/b/c", "a/b"},
		{"a", ""},
		{"", ""},
		{"a/../b", "a/.."}, // never cleaned
		{"/a/b/", "/a/b"},
	} {
		t.Run(c.in, func(t *testing.T) {
			if got := Parent(c.in); got != c.want {
				t.Errorf("Parent(%q) = %q, want %q", c.in, got, c.want)
			}
			if got := Parent([]byte(c.in)); string(got) != c.want {
				t.Errorf("Parent([]byte(%q)) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}
