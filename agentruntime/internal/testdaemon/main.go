// Command testdaemon is a stand-in Runtime daemon for the agentruntime tests. It prints what it is
// told, reacts to SIGTERM as told, can exit with a code, spawn a child in its process group, or
// dial the Core URL it was given; then it runs until a signal ends it.
//
// It prints "ready pid=N" once its signal handling is in place, so a test can wait for that line
// before sending signals.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

func main() {
	var prints, stderrs, envs list
	flag.Var(&prints, "print", "print this line on stdout (repeatable)")
	flag.Var(&stderrs, "stderr", "print this line on stderr (repeatable)")
	flag.Var(&envs, "print-env", "print NAME=value of this variable, or NAME unset (repeatable)")
	printArgs := flag.Bool("print-args", false, "print each argument as arg[i]=value")
	printEnviron := flag.Bool("print-environ", false, "print the variable names of the whole environment")
	printCwd := flag.Bool("print-cwd", false, "print the working directory as cwd=DIR")
	var touches list
	flag.Var(&touches, "touch", "create this file and print 'touched PATH' or 'touch PATH: error' (repeatable)")
	term := flag.String("term", "default", "on SIGTERM: default | ignore | exit:N")
	exitCode := flag.Int("exit", -1, "exit with this code once printed (-1: keep running)")
	child := flag.Bool("child", false, "start a silent copy of this program, in this process group")
	dial := flag.Bool("dial", false, "GET $WIRECHECK_CORE_URL/hello?device=$WIRECHECK_DEVICE_ID until it answers 200")
	flag.Parse()

	for _, l := range prints {
		fmt.Println(l)
	}
	for _, l := range stderrs {
		fmt.Fprintln(os.Stderr, l)
	}
	for _, n := range envs {
		if v, ok := os.LookupEnv(n); ok {
			fmt.Printf("%s=%s\n", n, v)
		} else {
			fmt.Printf("%s unset\n", n)
		}
	}
	if *printArgs {
		for i, a := range os.Args[1:] {
			fmt.Printf("arg[%d]=%s\n", i, a)
		}
	}
	if *printEnviron {
		var names []string
		for _, kv := range os.Environ() {
			n, _, _ := strings.Cut(kv, "=")
			names = append(names, n)
		}
		fmt.Printf("environ=%s\n", strings.Join(names, ","))
	}
	if *printCwd {
		wd, err := os.Getwd()
		fmt.Printf("cwd=%s%v\n", wd, errText(err))
	}
	for _, p := range touches {
		if err := os.WriteFile(p, []byte("written by testdaemon\n"), 0o644); err != nil {
			fmt.Printf("touch %s: %v\n", p, err)
		} else {
			fmt.Printf("touched %s\n", p)
		}
	}
	if *child {
		// The child writes nothing: an orphan writing to the output pipe of a dead supervisor
		// would die of SIGPIPE, and the tests need it to outlive its parent.
		cmd := exec.Command(os.Args[0])
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(3)
		}
		fmt.Printf("child=%d\n", cmd.Process.Pid)
	}
	if *exitCode >= 0 {
		os.Exit(*exitCode)
	}

	sigs := make(chan os.Signal, 1)
	switch {
	case *term == "default":
	case *term == "ignore":
		signal.Ignore(syscall.SIGTERM)
	case strings.HasPrefix(*term, "exit:"):
		code, err := strconv.Atoi(strings.TrimPrefix(*term, "exit:"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "bad -term:", *term)
			os.Exit(3)
		}
		signal.Notify(sigs, syscall.SIGTERM)
		go func() {
			<-sigs
			fmt.Println("got SIGTERM, exiting", code)
			os.Exit(code)
		}()
	default:
		fmt.Fprintln(os.Stderr, "bad -term:", *term)
		os.Exit(3)
	}
	if *dial {
		go dialCore()
	}
	fmt.Printf("ready pid=%d\n", os.Getpid())
	for {
		time.Sleep(time.Hour)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return " (" + err.Error() + ")"
}

func dialCore() {
	u := os.Getenv("WIRECHECK_CORE_URL") + "/hello?device=" + url.QueryEscape(os.Getenv("WIRECHECK_DEVICE_ID"))
	for {
		resp, err := http.Get(u)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				fmt.Println("dialed core")
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}
