//go:build aix || solaris || illumos

package exec

// vx does not support AIX, Solaris or illumos: running each task in its own
// process group, ending its whole tree and relaying signals rely on system
// calls these systems lack or spell differently, and nothing tests vx there.
// docs/install.md lists the systems vx is built and tested for; make cross
// builds each of them. The identifier below is left undefined on purpose, so
// that a build for one of these systems stops with this message.
var _ = vxDoesNotSupportAIXSolarisOrIllumos_SeeDocsInstallMd
