package cache

import (
	"github.com/vxrun/vx/internal/cache/key"
	"github.com/vxrun/vx/internal/cache/outputs"
)

// owner returns the owner of a restore of k's outputs into the project
// directory dir: the key's computation knows which files there are the
// task's (key.Computer.NotMine), and records those the restore writes.
func (c *Cache) owner(k *key.Key, dir string) *outputs.Owner {
	return &outputs.Owner{
		Yours: key.YoursOf(k),
		Mine: func(rels []string) error {
			if why := c.keys.NotMine(k, dir, rels); why != "" {
				return &outputs.ConflictError{Msg: why}
			}
			return nil
		},
		Wrote: func(rels []string, fresh []bool) { c.keys.Wrote(k, dir, rels, fresh) },
	}
}
