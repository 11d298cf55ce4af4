// pause: a pod sandbox's first process, as Kubernetes' build/pause/linux/pause.c: it holds the pod's namespaces,
// reaps the orphans the pod's containers leave (it is PID 1 of a shared PID namespace) and exits 0 on SIGINT or
// SIGTERM. Built static (CGO_ENABLED=0) into an image FROM scratch by tests/harness/containerd.py.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-v" {
		fmt.Println("pause (pinconsole tests) 1.0")
		return
	}
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for sig := range signals {
		if sig != syscall.SIGCHLD {
			fmt.Fprintf(os.Stderr, "Shutting down, got signal: %v\n", sig)
			os.Exit(0)
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
