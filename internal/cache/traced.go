package cache

import (
	"encoding/json"
)

// What a traced run (vx run --trace) found that a task read outside its
// key is kept beside the entry it stored ([store.Store.WriteTraced]): the
// files with their ids then. A later hit on that entry compares them with
// the files now ([Cache.TracedChanged]): the key does not hold them, so a
// change to one is a hit the key cannot see.

// tracedFile is the record as the file holds it.
type tracedFile struct {
	Action string      `json:"action"` // hash/size
	Files  []InputFile `json:"files"`
}

// RecordTraced keeps files (paths from the root, with their ids now),
// which a traced run of the task whose key is k read outside its key,
// beside k's entry. Best effort, like the record of a task's last entry.
func (c *Cache) RecordTraced(k *Key, files []InputFile) {
	data, err := json.Marshal(tracedFile{Action: k.Action.String(), Files: files})
	if err != nil {
		return
	}
	c.store.WriteTraced(k.Action, append(data, '\n'))
}

// readTraced returns the files recorded beside the entry of action, nil
// when none.
func (c *Cache) readTraced(action Digest) []InputFile {
	data := c.store.ReadTraced(action)
	if data == nil {
		return nil
	}
	var r tracedFile
	if json.Unmarshal(data, &r) != nil || r.Action != action.String() {
		return nil
	}
	return r.Files
}

// FileIDs returns the files at paths (slash-separated, from the root) as
// they are now, with their ids; a file that is gone has no id.
func (c *Cache) FileIDs(paths []string) []InputFile { return c.keys.FileIDs(paths) }

// TracedChanged returns the files that a traced run of k's entry read
// outside its key and that changed since (or are gone), by path from the
// root; none when the entry has no such record.
func (c *Cache) TracedChanged(k *Key) []string {
	then := c.readTraced(k.Action)
	if len(then) == 0 {
		return nil
	}
	paths := make([]string, len(then))
	for i, f := range then {
		paths[i] = f.Path
	}
	var changed []string
	for i, f := range c.FileIDs(paths) {
		if f.ID != then[i].ID {
			changed = append(changed, f.Path)
		}
	}
	return changed
}
