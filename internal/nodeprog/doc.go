// Package nodeprog finds the node program a task runs and the version it
// really runs: the one function vx's task keys, its config memo and the
// npm_config_user_agent it gives tasks all ask.
//
// Node is looked up in the child's PATH (not vx's), as the child's shell
// would find it. What decides its version:
//   - a node binary (an ELF, Mach-O or PE file named node, outside a version
//     manager's shim directory): the file itself, told by its path, size,
//     times and inode (file index on Windows);
//   - anything else is a version manager's shim (asdf, mise, nodenv,
//     scoop: a script, a link to the manager's binary or an executable
//     under ".../shims/"; volta's volta-shim, and on Windows any node.exe
//     in Volta's directory but its tools\image; Chocolatey's bin; a script
//     of any kind): which node it runs depends on the
//     directory the task starts in and on its environment. Its identity
//     then also holds the pin files of that directory and of every
//     directory above it (.tool-versions, .nvmrc, .node-version,
//     package.json's "volta", "engines" and "devEngines", mise's and rtx's
//     config files, .prototools, and the file names the managers' variables
//     give), the managers' variables (NVM_*, FNM_*, ASDF_*, MISE_*, RTX_*,
//     VOLTA_*, NODENV_*, PROTO_*, N_PREFIX, NODE_VERSION, and HOME and the
//     XDG and Windows profile directories they read), the PATH after the
//     shim (a "system" version is looked for there), and the managers'
//     global defaults and installed versions (~/.tool-versions, ~/.asdfrc,
//     mise's global config, volta's platform.json, nvm's and fnm's default
//     aliases, nodenv's version file, the lists of installed nodes, which
//     a fuzzy pin such as "20" picks from).
//
// On Windows, names compare without case and without ".exe", and a node
// binary's identity is its size and modification time (no inode).
//
// Two programs with the same identity run the same version: the version is
// asked once per identity (node --version, with the task's environment, in
// its directory, for at most [Timeout]) and kept in the caller's [Memo]
// across runs. The pin files of two directories count by their contents
// and by how far up each was found, not by their paths, so that the
// projects of a workspace that share their pins share one answer.
package nodeprog
