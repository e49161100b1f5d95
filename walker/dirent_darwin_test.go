package walker

import "testing"

func TestPlatformDirentIsTheLayoutTheLinuxTestsUse(t *testing.T) {
	if platformDirent != darwinDirent {
		t.Fatalf("unix.Dirent offsets %+v, the tests assume %+v", platformDirent, darwinDirent)
	}
}
