package served

import (
	"testing"

	"golang.org/x/sys/unix"
)

// A stamp is trusted only where every change of content moves the ctime:
// not tmpfs, where a write through a shared mapping never does, nor a
// filesystem a server or a lower layer speaks for.
func TestStampsTrustTheCtimeOfLocalDiskFilesystemsOnly(t *testing.T) {
	for typ, ok := range map[int64]bool{unix.EXT4_SUPER_MAGIC: true, unix.XFS_SUPER_MAGIC: true, unix.BTRFS_SUPER_MAGIC: true,
		unix.TMPFS_MAGIC: false, unix.FUSE_SUPER_MAGIC: false, unix.NFS_SUPER_MAGIC: false, unix.OVERLAYFS_SUPER_MAGIC: false} {
		if keepsCtime(typ) != ok {
			t.Errorf("keepsCtime(%#x) = %v, want %v", typ, !ok, ok)
		}
	}
}
