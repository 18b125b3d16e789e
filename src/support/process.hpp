// Running a program without a shell: its output captured, killed after a timeout. For the
// tools and tests that compile generated code with the system compiler and run it.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace loam {

struct Exec {
  int status = -1;  // exit code; -1 when killed or not started
  bool timed_out = false;
  std::string output;  // stdout and stderr together
};

// Runs argv without a shell, capturing its output, killing it after `timeout` seconds.
inline Exec run_process(const std::vector<std::string>& argv, int timeout) {
  Exec r;
  // argv is laid out before fork: the child of a threaded process (--jobs) only execs.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int pipefd[2];
  if (pipe(pipefd) != 0) return r;
  pid_t pid = fork();
  if (pid < 0) {
    close(pipefd[0]);
    close(pipefd[1]);
    return r;
  }
  if (pid == 0) {
    dup2(pipefd[1], 1);
    dup2(pipefd[1], 2);
    close(pipefd[0]);
    close(pipefd[1]);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(pipefd[1]);
  fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
  auto start = std::chrono::steady_clock::now();
  char buf[4096];
  int status = 0;
  bool done = false;
  while (!done) {
    ssize_t n;
    while ((n = read(pipefd[0], buf, sizeof buf)) > 0)
      if (r.output.size() < (1u << 20)) r.output.append(buf, static_cast<std::size_t>(n));
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      done = true;
      break;
    }
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(timeout)) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) > 0)
    if (r.output.size() < (1u << 20)) r.output.append(buf, static_cast<std::size_t>(n));
  close(pipefd[0]);
  if (!r.timed_out && WIFEXITED(status)) r.status = WEXITSTATUS(status);
  return r;
}

}  // namespace loam
