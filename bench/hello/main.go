// Command hello is the reference bench/compare measures process start
// against: a hello-world built by the same toolchain as skillpm.
package main

import "fmt"

func main() { fmt.Println("hello, world") }
