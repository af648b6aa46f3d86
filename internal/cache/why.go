package cache

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/vxrun/vx/internal/cache/key"
	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/cache/store"
	"github.com/vxrun/vx/internal/quote"
)

// Why says whether a task's key would hit and, when it would not, what
// changed since the entry the task last stored or restored ([LastUse]):
// what `vx why` prints and `vx run --summary` reports for a miss.
//
// The comparison is of the key's parts as the store keeps them (the
// Action, its Command and the input list, all blobs), read generically:
// platform properties, the Command's arguments, variables, output globs and
// directory, and the input list's lines by kind. A part added to the key
// shows, under its own kind, without a change here. Variables are compared
// by their hashed values and named, never shown.
type Why struct {
	ID string `json:"id"`
	// Cache is "hit" (the store holds an entry for the key), "miss", or
	// "off" (the task is not cached).
	Cache string `json:"cache"`
	Key   string `json:"key,omitempty"` // the key now (SHA-256 of the Action)
	// Previous is the key compared with: the task's last entry, or for a
	// dependency the key its dependent's entry recorded; nil when there is
	// none.
	Previous *Previous `json:"previous"`
	Reason   string    `json:"reason"` // one line
	Changes  []Change  `json:"changes"`
	// TracedChanged, for a hit, are the files (from the root) that a
	// traced run of the entry (vx run --trace) read outside its key and
	// that changed since: the key cannot see them, so the hit may be
	// wrong.
	TracedChanged []string `json:"tracedChanged,omitempty"`
}

// Previous is the key a [Why] compares with.
type Previous struct {
	Key  string     `json:"key"`
	Time *time.Time `json:"time,omitempty"` // when it became the task's last entry, when known
	VX   string     `json:"vx,omitempty"`   // the vx that did, when known
}

// Change is one difference between two keys.
type Change struct {
	// Kind is the part: "format" (vx's key format: every entry misses),
	// "platform", "workdir" (the project's directory), "command" (the
	// script, its pre and post scripts, the arguments after --), "env" (a
	// variable of the key), "outputs" and "inputs" (vx.json's globs),
	// "lockfile", "setting" (a global setting recorded in a lockfile vx
	// reads: overrides, patches, pnpm's settings), "package" (a package
	// the project can load, from such a lockfile: Old and New are its
	// versions), "file", "dependency" (a task it depends on), another word
	// for a line of the input list of another kind, "entry" (the key is
	// the same, its entry is gone) or "key" (a part vx cannot name).
	Kind string `json:"kind"`
	// Change is "added", "removed", "modified", or "reordered" (globs).
	Change string `json:"change"`
	// Name is the file's path from the root, the variable's or platform
	// property's name, the glob, the dependency's task id.
	Name string `json:"name,omitempty"`
	// Old and New are the values before and now where they are not
	// secret: the command's arguments, a platform property's value, the
	// format, the directory. Never a variable's.
	Old []string `json:"old,omitempty"`
	New []string `json:"new,omitempty"`
	// Why explains a dependency's new key (vx why), nil when it was
	// explained above or not asked for.
	Why *Why `json:"why,omitempty"`
}

// The reasons that are not a list of changes.
const (
	reasonNeverStored = "never stored: first run, or the entry was pruned"
	reasonForced      = "--force: the cache was not read"
	reasonHit         = "would hit: the store holds an entry for this key"
)

// Why says whether k would hit, and when not, what changed since the
// task's last entry. depKey, when not nil, returns the key now of a task
// k depends on, by id: a dependency whose key changed is explained in
// turn, each once. [Explainer] answers for several tasks at once.
func (c *Cache) Why(k *Key, depKey func(id string) *Key) *Why {
	return c.NewExplainer(depKey).Why(k)
}

// ExplainMiss says why k, which missed, missed: what changed since the
// task's last entry. A dependency whose key changed is named, not
// explained (a run explains its own miss).
func (c *Cache) ExplainMiss(k *Key) *Why { return c.NewExplainer(nil).explainMiss(k) }

// Explainer answers [Cache.Why] for the tasks of one `vx why`: a
// comparison made once in its answers (a task's with a given old key, for
// itself or as a dependency) is not made again, so that a long chain of
// dependencies is explained once, not once per dependent. A repeated
// dependency's change has no Why: it is above.
type Explainer struct {
	c      *Cache
	depKey func(id string) *Key
	seen   map[string]bool // task id NUL old key: compared already
}

// NewExplainer returns an Explainer; depKey is as for [Cache.Why].
func (c *Cache) NewExplainer(depKey func(id string) *Key) *Explainer {
	return &Explainer{c: c, depKey: depKey, seen: map[string]bool{}}
}

// Why is [Cache.Why], each comparison once in x's answers.
func (x *Explainer) Why(k *Key) *Why {
	if x.c.Has(k) {
		return &Why{ID: k.Spec().ID, Cache: "hit", Key: k.Action.Hash, Reason: reasonHit, Changes: []Change{}, TracedChanged: x.c.TracedChanged(k)}
	}
	return x.explainMiss(k)
}

func (x *Explainer) explainMiss(k *Key) *Why {
	c := x.c
	w := &Why{ID: k.Spec().ID, Cache: "miss", Key: k.Action.Hash, Changes: []Change{}}
	if !c.opts.Read {
		w.Reason = reasonForced
		return w
	}
	var be *BoundElsewhereError
	if _, err := c.readLocal(k); errors.As(err, &be) {
		// The key is the same; the entry holds another checkout's path.
		w.Reason = be.Error()
		return w
	}
	last := c.store.ReadLast(c.opts.Root, k.Spec().ID)
	if last == nil {
		w.Reason = reasonNeverStored
		return w
	}
	w.Previous = previousOf(last)
	if last.Action == k.Action {
		w.Changes = append(w.Changes, Change{Kind: "entry", Change: "removed"})
		w.Reason = reasonOf(w.Changes)
		return w
	}
	x.seen[k.Spec().ID+"\x00"+last.Action.Hash] = true
	if err := x.compare(w, k, last.Action.Hash, last); err != nil {
		w.Reason = "its last entry is gone (pruned)"
		if !gone(err) {
			w.Reason = fmt.Sprintf("its last entry cannot be read (%v)", err)
		}
	}
	return w
}

func previousOf(u *store.LastUse) *Previous {
	p := &Previous{Key: u.Action.Hash, VX: u.VX}
	if !u.Time.IsZero() {
		t := u.Time.UTC()
		p.Time = &t
	}
	return p
}

// keyParts are the parts of a key as the store keeps them.
type keyParts struct {
	action  *reapi.Action
	command *reapi.Command
	list    inputList
}

// readParts reads from s the parts of the key whose Action has hash h.
func readParts(s *store.Store, h string) (*keyParts, error) {
	ab, err := s.ReadBlobByHash(h)
	if err != nil {
		return nil, err
	}
	a, err := reapi.UnmarshalAction(ab)
	if err != nil {
		return nil, err
	}
	cb, err := s.ReadBlob(a.CommandDigest)
	if err != nil {
		return nil, err
	}
	cmd, err := reapi.UnmarshalCommand(cb)
	if err != nil {
		return nil, err
	}
	lb, err := s.ReadBlob(a.InputRootDigest)
	if err != nil {
		return nil, err
	}
	return &keyParts{a, cmd, parseInputList(lb)}, nil
}

// partsOf decodes the parts of a key computed in this run.
func partsOf(k *Key) (*keyParts, error) {
	action, command, list := k.Parts()
	a, err := reapi.UnmarshalAction(action)
	if err != nil {
		return nil, err
	}
	cmd, err := reapi.UnmarshalCommand(command)
	if err != nil {
		return nil, err
	}
	return &keyParts{a, cmd, parseInputList(list)}, nil
}

// gone reports whether err says that a blob is not in the store.
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNotFound)
}

// compare fills w with what differs between k and the key whose Action
// hash is old; last, when it records that key, adds what the key does not
// hold (the inputs globs). It fails when the old key's parts cannot be
// read.
func (x *Explainer) compare(w *Why, k *Key, old string, last *store.LastUse) error {
	was, err := readParts(x.c.store, old)
	if err != nil {
		return err
	}
	now, err := partsOf(k)
	if err != nil {
		return err // a bug: vx made it
	}
	var ch []Change
	add := func(c Change) { ch = append(ch, c) }

	if !bytes.Equal(was.action.Salt, now.action.Salt) {
		add(Change{Kind: "format", Change: "modified", Name: "key", Old: []string{string(was.action.Salt)}, New: []string{string(now.action.Salt)}})
	}
	if was.list.header != now.list.header {
		add(Change{Kind: "format", Change: "modified", Name: "input list", Old: []string{was.list.header}, New: []string{now.list.header}})
	}
	if !bytes.Equal(was.action.Other, now.action.Other) || !bytes.Equal(was.command.Other, now.command.Other) {
		add(Change{Kind: "key", Change: "modified"})
	}
	diffProps(was.action.Platform, now.action.Platform, func(name, change, o, n string) {
		c := Change{Kind: "platform", Change: change, Name: name}
		if change != "added" {
			c.Old = []string{o}
		}
		if change != "removed" {
			c.New = []string{n}
		}
		add(c)
	})
	if was.command.WorkingDirectory != now.command.WorkingDirectory {
		add(Change{Kind: "workdir", Change: "modified", Old: []string{dirName(was.command.WorkingDirectory)}, New: []string{dirName(now.command.WorkingDirectory)}})
	}
	if !slices.Equal(was.command.Arguments, now.command.Arguments) {
		add(Change{Kind: "command", Change: "modified", Old: nonNil(was.command.Arguments), New: nonNil(now.command.Arguments)})
	}
	// Values hashed with another secret cannot be compared: the secret's
	// change (a platform change above) is the reason, and only variables
	// added or removed are named.
	sameSecret := propValue(was.action.Platform, key.EnvKeyProperty) == propValue(now.action.Platform, key.EnvKeyProperty)
	diffProps(was.command.Environment, now.command.Environment, func(name, change, _, _ string) {
		if change == "modified" && !sameSecret {
			return
		}
		add(Change{Kind: "env", Change: change, Name: name})
	})
	for _, c := range diffGlobs("outputs", was.command.OutputPaths, now.command.OutputPaths) {
		add(c)
	}
	if last != nil && last.Action.Hash == old {
		def := func(g []string) []string {
			if g == nil {
				return []string{"**"} // the default set
			}
			return g
		}
		for _, c := range diffGlobs("inputs", def(last.Inputs), def(k.Spec().Inputs)) {
			add(c)
		}
	}
	for _, c := range diffLists(was.list, now.list) {
		if c.Kind == "dependency" && c.Change == "modified" && x.depKey != nil {
			c.Why = x.dependency(c.Name, was.list.value("dep", c.Name))
		}
		if c.Kind == "lockfile" && c.Change == "modified" {
			// A lockfile keyed by its project's closure: what changed in it.
			if lc := x.c.lockfileChanges(c.Name, was.list.value("lockfile", c.Name), now.list.value("lockfile", c.Name)); lc != nil {
				for _, c := range lc {
					add(c)
				}
				continue
			}
		}
		add(c)
	}
	if len(ch) == 0 {
		ch = append(ch, Change{Kind: "key", Change: "modified"})
	}
	sort.SliceStable(ch, func(i, j int) bool { return kindRank(ch[i].Kind) < kindRank(ch[j].Kind) })
	w.Changes = ch
	w.Reason = reasonOf(ch)
	return nil
}

// dependency explains why the task id's key is no longer old, the key its
// dependent's entry recorded; nil when that was explained already.
func (x *Explainer) dependency(id, old string) *Why {
	if x.seen[id+"\x00"+old] {
		return nil
	}
	x.seen[id+"\x00"+old] = true
	k := x.depKey(id)
	if k == nil {
		return nil
	}
	w := &Why{ID: id, Cache: "miss", Key: k.Action.Hash, Previous: &Previous{Key: old}, Changes: []Change{}}
	if x.c.Has(k) {
		w.Cache = "hit"
	}
	last := x.c.store.ReadLast(x.c.opts.Root, id)
	if last != nil && last.Action.Hash == old {
		w.Previous = previousOf(last)
	} else {
		last = nil
	}
	if err := x.compare(w, k, old, last); err != nil {
		w.Reason = "what its key was made of before is not in the store (pruned, or the task is not cached)"
		if !gone(err) {
			w.Reason = fmt.Sprintf("what its key was made of before cannot be read (%v)", err)
		}
	}
	return w
}

func dirName(d string) string {
	if d == "" {
		return "."
	}
	return d
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// propValue returns the value of the property named name, "" when none.
func propValue(props []reapi.Property, name string) string {
	for _, p := range props {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// diffProps compares two lists of name-value pairs sorted by name.
func diffProps(was, now []reapi.Property, fn func(name, change, old, new string)) {
	old := map[string]string{}
	for _, p := range was {
		old[p.Name] = p.Value
	}
	for _, p := range now {
		v, ok := old[p.Name]
		switch {
		case !ok:
			fn(p.Name, "added", "", p.Value)
		case v != p.Value:
			fn(p.Name, "modified", v, p.Value)
		}
		delete(old, p.Name)
	}
	names := make([]string, 0, len(old))
	for n := range old {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fn(n, "removed", old[n], "")
	}
}

// diffGlobs compares two lists of globs: those added and removed, or
// "reordered" when they hold the same globs in another order (the order of
// inputs globs matters: the last one matching decides).
func diffGlobs(kind string, was, now []string) []Change {
	var ch []Change
	for _, g := range now {
		if !slices.Contains(was, g) {
			ch = append(ch, Change{Kind: kind, Change: "added", Name: g})
		}
	}
	for _, g := range was {
		if !slices.Contains(now, g) {
			ch = append(ch, Change{Kind: kind, Change: "removed", Name: g})
		}
	}
	if len(ch) == 0 && !slices.Equal(was, now) {
		ch = append(ch, Change{Kind: kind, Change: "reordered", Old: nonNil(was), New: nonNil(now)})
	}
	return ch
}

// inputList is a parsed input list: its first line, then one line per
// dependency or file, `<kind> <value...> "<name>"`.
type inputList struct {
	header string
	lines  map[string]string // kind NUL name → value
	keys   []string          // kind NUL name, in the list's order
}

func parseInputList(b []byte) inputList {
	l := inputList{lines: map[string]string{}}
	s := string(b)
	first := true
	for len(s) > 0 {
		line, rest, _ := strings.Cut(s, "\n")
		s = rest
		if first {
			l.header, first = line, false
			continue
		}
		kind, tail, _ := strings.Cut(line, " ")
		value, name := tail, ""
		if i := strings.IndexByte(tail, '"'); i >= 0 {
			if n, err := strconv.Unquote(tail[i:]); err == nil {
				value, name = strings.TrimSpace(tail[:i]), n
			}
		}
		k := kind + "\x00" + name
		if _, dup := l.lines[k]; !dup {
			l.keys = append(l.keys, k)
		}
		l.lines[k] = value
	}
	return l
}

func (l inputList) value(kind, name string) string {
	v := l.lines[kind+"\x00"+name]
	if kind == "dep" {
		v, _, _ = strings.Cut(v, " ")
	}
	return v
}

// diffLists compares two input lists line by line: what was added,
// removed, or holds another value (a file's content or executable bit, a
// dependency's key).
func diffLists(was, now inputList) []Change {
	var ch []Change
	change := func(k, c, old, new string) {
		kind, name, _ := strings.Cut(k, "\x00")
		x := Change{Kind: lineKind(kind, name), Change: c, Name: name}
		if kind == "package" {
			// "<version>,<version> <digest>": the versions are named.
			if c != "added" {
				x.Old = packageVersions(old)
			}
			if c != "removed" {
				x.New = packageVersions(new)
			}
		}
		ch = append(ch, x)
	}
	for _, k := range now.keys {
		v, ok := was.lines[k]
		switch {
		case !ok:
			change(k, "added", "", now.lines[k])
		case v != now.lines[k]:
			change(k, "modified", v, now.lines[k])
		}
	}
	for _, k := range was.keys {
		if _, ok := now.lines[k]; !ok {
			change(k, "removed", was.lines[k], "")
		}
	}
	// A lockfile keyed by its bytes in one key and by the project's closure
	// in the other (two kinds of line): one lockfile modified.
	for i := 0; i < len(ch); i++ {
		if ch[i].Kind != "lockfile" || ch[i].Change != "added" {
			continue
		}
		for j := range ch {
			if ch[j].Kind == "lockfile" && ch[j].Change == "removed" && ch[j].Name == ch[i].Name {
				ch[i].Change = "modified"
				ch = slices.Delete(ch, j, j+1)
				break
			}
		}
	}
	sort.SliceStable(ch, func(i, j int) bool {
		if ch[i].Kind != ch[j].Kind {
			return kindRank(ch[i].Kind) < kindRank(ch[j].Kind)
		}
		return ch[i].Name < ch[j].Name
	})
	return ch
}

// packageVersions are the versions of a "package" line's value.
func packageVersions(value string) []string {
	vs, _, _ := strings.Cut(value, " ")
	if vs == "" {
		return []string{}
	}
	return strings.Split(vs, ",")
}

// lineKind names the kind of an input list's line for a Change.
func lineKind(kind, name string) string {
	switch kind {
	case "dep":
		return "dependency"
	case "file":
		if slices.Contains(key.Lockfiles, name) {
			return "lockfile"
		}
	}
	return kind
}

var kindOrder = []string{"format", "key", "entry", "platform", "workdir", "command", "env", "outputs", "inputs", "lockfile", "setting", "package", "file"}

// kindRank orders changes: the format first, the dependencies last,
// kinds vx does not know just before them.
func kindRank(kind string) int {
	if i := slices.Index(kindOrder, kind); i >= 0 {
		return i
	}
	if kind == "dependency" {
		return len(kindOrder) + 1
	}
	return len(kindOrder)
}

// Describe says what c is, in a few words: "src/a.ts modified",
// "variable NODE_ENV changed", "node-version v20.1.0 → v22.3.0".
func (c Change) Describe() string {
	old, new := strings.Join(c.Old, " "), strings.Join(c.New, " ")
	name := quote.Name(c.Name)
	switch c.Kind {
	case "format":
		return fmt.Sprintf("vx's key format changed (%s → %s): every entry misses", quote.Name(old), quote.Name(new))
	case "key":
		return "the key changed in a part vx cannot name"
	case "entry":
		return "its entry is gone (pruned) or unusable"
	case "platform":
		if c.Name == key.EnvKeyProperty && c.Change == "modified" {
			return fmt.Sprintf("the secret the variables' values are hashed with changed (%s → %s): their values cannot be compared", quote.Name(old), quote.Name(new))
		}
		switch c.Change {
		case "added":
			return fmt.Sprintf("%s %s added", name, quote.Name(new))
		case "removed":
			return fmt.Sprintf("%s %s removed", name, quote.Name(old))
		}
		return fmt.Sprintf("%s %s → %s", name, quote.Name(old), quote.Name(new))
	case "workdir":
		return fmt.Sprintf("the project's directory changed (%s → %s)", quote.Name(old), quote.Name(new))
	case "command":
		return "the script changed"
	case "env":
		if c.Change == "modified" {
			return "variable " + name + " changed"
		}
		return "variable " + name + " " + c.Change
	case "outputs", "inputs":
		if c.Change == "reordered" {
			return "declared " + c.Kind + " reordered"
		}
		return fmt.Sprintf("declared %s: %s %s", c.Kind, c.Change, quote.Q(c.Name))
	case "lockfile":
		return "lockfile " + name + " " + c.Change
	case "setting":
		if c.Change == "modified" {
			return "lockfile setting " + name + " changed"
		}
		return "lockfile setting " + name + " " + c.Change
	case "package":
		// The versions that went and came: an alias's other version,
		// unchanged, is not named.
		var went, came []string
		for _, v := range c.Old {
			if !slices.Contains(c.New, v) {
				went = append(went, v)
			}
		}
		for _, v := range c.New {
			if !slices.Contains(c.Old, v) {
				came = append(came, v)
			}
		}
		old, new := strings.Join(went, ","), strings.Join(came, ",")
		switch {
		case old != "" && new != "":
			return "dependency " + name + " " + old + " → " + new
		case new != "":
			return "dependency " + name + " " + new + " added"
		case old != "":
			return "dependency " + name + " " + old + " removed"
		}
		return "dependency " + name + " " + strings.Join(c.New, ",") + " resolved differently (integrity, source or its dependencies)"
	case "dependency":
		switch c.Change {
		case "added":
			return "now depends on " + name
		case "removed":
			return "no longer depends on " + name
		}
		return "dependency " + name + " changed"
	}
	return name + " " + c.Change
}

// IsFile reports whether c is about one input file (a file or a lockfile,
// or a line of a kind vx does not know).
func (c Change) IsFile() bool {
	return c.Kind == "file" || c.Kind == "lockfile" || kindRank(c.Kind) == len(kindOrder)
}

// reasonOf says in one line what changes hold: the first few, the files
// counted.
func reasonOf(ch []Change) string {
	files, pkgs := 0, 0
	for _, c := range ch {
		if c.IsFile() {
			files++
		}
		if c.Kind == "package" {
			pkgs++
		}
	}
	var parts []string
	first, firstPkg := true, true
	for _, c := range ch {
		d := c.Describe()
		if c.IsFile() {
			if !first {
				continue
			}
			first = false
			switch {
			case files == 2:
				d += " and 1 more file"
			case files > 2:
				d += fmt.Sprintf(" and %d more files", files-1)
			}
		}
		if c.Kind == "package" {
			if !firstPkg {
				continue
			}
			firstPkg = false
			switch {
			case pkgs == 2:
				d += " and 1 more package"
			case pkgs > 2:
				d += fmt.Sprintf(" and %d more packages", pkgs-1)
			}
		}
		parts = append(parts, d)
	}
	const most = 4
	if len(parts) > most {
		parts = append(parts[:most], fmt.Sprintf("%d more changes", len(parts)-most))
	}
	return strings.Join(parts, "; ")
}

// lockfileChanges names what changed in a lockfile's closure between two
// keys, from their descriptions (the digests old and new): the packages
// and settings; nil when a description is not at hand (then the caller
// says that the lockfile changed).
func (c *Cache) lockfileChanges(name, old, new string) []Change {
	was, now := c.keys.Closure(old), c.keys.Closure(new)
	if was == nil || now == nil {
		return nil
	}
	var out []Change
	other := false
	for _, ch := range diffLists(parseInputList(was), parseInputList(now)) {
		switch ch.Kind {
		case "package", "setting":
			out = append(out, ch)
		default:
			other = true // its format or the projects' links
		}
	}
	if other || len(out) == 0 {
		out = append([]Change{{Kind: "lockfile", Change: "modified", Name: name}}, out...)
	}
	return out
}
