// podshim is every program name kwok can run: it hands the request to the pod sandbox broker.
//
// kwok runs an exec'd command as a child process of its own. Inside kwok's jail every executable path
// (/bin/sh, /usr/bin/cat, ...) is this static binary, so whatever a client asks for, the only thing that
// runs next to kwok is this shim. It passes its argv, the pod named by PINCONSOLE_POD (set by the
// pod's kwok Exec rule, never by the client) and its stdin/stdout/stderr (the kwok stream's pipes or pty)
// to the broker over a unix socket; the broker starts the command in the pod's bubblewrap sandbox and
// answers with its exit status. Closing the socket (this process killed) ends the sandboxed command.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"syscall"
)

const defaultSocket = "/run/podsb/broker.sock"

type request struct {
	Pod  string   `json:"pod"`
	Argv []string `json:"argv"`
}

type reply struct {
	Exit  int    `json:"exit"`
	Error string `json:"error"`
}

func fail(msg string) {
	fmt.Fprintf(os.Stderr, "pod sandbox: %s\n", msg)
	os.Exit(126)
}

func main() {
	path := os.Getenv("PODSB_SOCKET")
	if path == "" {
		path = defaultSocket
	}
	conn, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		fail("broker unavailable: " + err.Error())
	}
	body, _ := json.Marshal(request{Pod: os.Getenv("PINCONSOLE_POD"), Argv: os.Args})
	body = append(body, '\n')
	if _, _, err := conn.WriteMsgUnix(body, syscall.UnixRights(0, 1, 2), nil); err != nil {
		fail("send: " + err.Error())
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		fail("broker closed the session")
	}
	var r reply
	if err := json.Unmarshal(line, &r); err != nil {
		fail("bad broker answer")
	}
	if r.Error != "" {
		fail(r.Error)
	}
	os.Exit(r.Exit)
}
