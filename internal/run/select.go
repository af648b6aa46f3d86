package run

import "github.com/vxrun/vx/workspace"

// Projects returns the projects a `vx run` with sel would consider, in
// workspace order, by the rules of [Plan]; sel.Tasks is not looked at.
// `vx run` without a task lists their scripts, and completion offers them.
func Projects(ws *workspace.Workspace, sel Selection) ([]*workspace.Project, error) {
	s, err := selectProjects(ws, sel)
	return s.projects, err
}
