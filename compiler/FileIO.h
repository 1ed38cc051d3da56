//===- FileIO.h - the tools' checked file input and output ------*- C++ -*-===//
//
// jfac, jfa-opt and jfa-interp read and write files only through these, so
// that a bad path gives one line naming the file and the problem (a
// directory, a device that never ends, a full disk, a folder that cannot be
// written) instead of an exception, an abort or a partial file.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_COMPILER_FILEIO_H
#define JFA_COMPILER_FILEIO_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <utility>

namespace jfa {

/// How much a tool reads from one input that is not a regular file (a pipe,
/// a device, standard input) before it gives up: /dev/zero never ends.
constexpr uint64_t kStreamInputLimit = uint64_t(256) << 20;

/// Reads `path` whole ("-": standard input). A regular file is read if it
/// holds at most `limit` bytes; anything else that can be opened is read up
/// to `limit` bytes. On failure returns null with `error` set to
/// "<path>: <problem>".
std::unique_ptr<llvm::MemoryBuffer>
readInputFile(llvm::StringRef path, std::string &error,
              uint64_t limit = kStreamInputLimit);

/// Checks, before any work is done, that `path` ("-": standard output) can
/// be written: it is no directory, its folder exists and is writable, and
/// where it exists it is writable. On failure returns false with `error`
/// set to "<path>: <problem>".
bool checkOutputFile(llvm::StringRef path, std::string &error);

/// Writes each (path, contents) whole or leaves it alone: a regular file
/// (or a new one) is written to a temporary file beside it, and all of them
/// are renamed into place only once every file has been written; a device,
/// a pipe or "-" is written directly and a failed write (a full disk) is an
/// error. On failure nothing new is left behind and `error` is
/// "<path>: <problem>".
bool writeOutputFiles(llvm::ArrayRef<std::pair<std::string, std::string>> files,
                      std::string &error);

inline bool writeOutputFile(llvm::StringRef path, llvm::StringRef contents,
                            std::string &error) {
  std::pair<std::string, std::string> file(path.str(), contents.str());
  return writeOutputFiles(file, error);
}

/// A file named on the command line, with the option that names it ("-o",
/// "--metadata", "the input").
struct NamedFile {
  std::string option, path;
};

/// Checks that no two of `files` are the same file (compared by canonical
/// path, through symbolic links and `..`, and as the same inode where both
/// exist), so that one output cannot overwrite the input or another output.
/// Standard input/output ("-") and devices such as /dev/null are left out.
/// Each file after the first is an output. On failure returns false with
/// `error` naming both options and both paths.
bool checkDistinctFiles(llvm::ArrayRef<NamedFile> files, std::string &error);

/// Whether `path` names an existing file that is not a regular file (a
/// device such as /dev/null, a pipe): outputs there get no companion files.
bool isSpecialFile(llvm::StringRef path);

/// Checks that each of `dirs` (the -I folders imports are looked for in) is
/// a folder; on failure returns false with `error` naming the -I option, the
/// path and the problem.
bool checkIncludeDirs(llvm::ArrayRef<std::string> dirs, std::string &error);

} // namespace jfa

#endif // JFA_COMPILER_FILEIO_H
