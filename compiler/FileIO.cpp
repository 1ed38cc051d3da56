//===- FileIO.cpp - the tools' checked file input and output --------------===//
#include "compiler/FileIO.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <system_error>

using namespace llvm;

namespace jfa {

namespace {

bool failWith(std::string &error, StringRef path, const Twine &problem) {
  error = (path + ": " + problem).str();
  return false;
}

std::string sizeText(uint64_t bytes) {
  if (bytes >= (uint64_t(1) << 20) && bytes % (uint64_t(1) << 20) == 0)
    return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} bytes", bytes);
}

/// Reads `file` to its end, or to `limit` bytes and one more to tell.
std::error_code readCapped(sys::fs::file_t file, uint64_t limit,
                           SmallVectorImpl<char> &bytes, bool &tooLong) {
  tooLong = false;
  constexpr size_t kChunk = 1 << 16;
  for (;;) {
    size_t size = bytes.size();
    bytes.resize_for_overwrite(size + kChunk);
    Expected<size_t> got = sys::fs::readNativeFile(
        file, MutableArrayRef<char>(bytes.data() + size, kChunk));
    if (!got) {
      bytes.truncate(size);
      return errorToErrorCode(got.takeError());
    }
    bytes.truncate(size + *got);
    if (*got == 0)
      return {};
    if (bytes.size() > limit) {
      tooLong = true;
      return {};
    }
  }
}

} // namespace

std::unique_ptr<MemoryBuffer> readInputFile(StringRef path, std::string &error,
                                            uint64_t limit) {
  if (path.empty()) {
    failWith(error, "''", "an empty file name");
    return nullptr;
  }
  sys::fs::file_status status;
  bool isStdin = path == "-";
  if (!isStdin) {
    if (std::error_code ec = sys::fs::status(path, status)) {
      failWith(error, path, "cannot read it: " + ec.message());
      return nullptr;
    }
    if (sys::fs::is_directory(status)) {
      failWith(error, path, "is a directory, not a file");
      return nullptr;
    }
    // A regular file that reports 0 bytes may still hold some: procfs and
    // sysfs files are generated as they are read. Those are read as a stream.
    if (sys::fs::is_regular_file(status) && status.getSize() > 0) {
      if (status.getSize() > limit) {
        failWith(error, path,
                 "is " + sizeText(status.getSize()) + ", over the " +
                     sizeText(limit) + " an input may hold");
        return nullptr;
      }
      ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
          MemoryBuffer::getFile(path, /*IsText=*/false,
                                /*RequiresNullTerminator=*/true);
      if (!buffer) {
        failWith(error, path, "cannot read it: " + buffer.getError().message());
        return nullptr;
      }
      return std::move(*buffer);
    }
  }
  // A pipe, a device, standard input or a generated file: read what it
  // gives, up to the limit.
  sys::fs::file_t file = sys::fs::getStdinHandle();
  if (!isStdin) {
    Expected<sys::fs::file_t> opened = sys::fs::openNativeFileForRead(path);
    if (!opened) {
      failWith(error, path, "cannot read it: " + toString(opened.takeError()));
      return nullptr;
    }
    file = *opened;
  }
  SmallString<0> bytes;
  bool tooLong = false;
  std::error_code ec = readCapped(file, limit, bytes, tooLong);
  if (!isStdin)
    sys::fs::closeFile(file);
  StringRef name = isStdin ? StringRef("<stdin>") : path;
  if (ec) {
    failWith(error, name, "cannot read it: " + ec.message());
    return nullptr;
  }
  if (tooLong) {
    failWith(error, name,
             "is not a regular file and gives more than " + sizeText(limit) +
                 " (an endless file such as /dev/zero?)");
    return nullptr;
  }
  return MemoryBuffer::getMemBufferCopy(bytes, name);
}

bool isSpecialFile(StringRef path) {
  sys::fs::file_status status;
  if (path == "-" || sys::fs::status(path, status))
    return false;
  return !sys::fs::is_regular_file(status) && !sys::fs::is_directory(status);
}

bool checkIncludeDirs(ArrayRef<std::string> dirs, std::string &error) {
  for (const std::string &dir : dirs) {
    sys::fs::file_status status;
    std::error_code ec = sys::fs::status(dir, status);
    if (dir.empty())
      error = "-I is empty; give a folder to look for imported files in";
    else if (ec)
      error = fmt::format("-I {}: {}", dir, ec.message());
    else if (!sys::fs::is_directory(status))
      error = fmt::format("-I {}: not a folder", dir);
    else
      continue;
    return false;
  }
  return true;
}

namespace {
/// `path` made absolute with its folder's symbolic links and `..` resolved
/// (the file itself need not exist; a link there is followed when it
/// does), or empty when its folder cannot be resolved.
std::string canonicalPath(StringRef path) {
  SmallString<256> real;
  if (!sys::fs::real_path(path, real))
    return std::string(real);
  SmallString<256> folder(sys::path::parent_path(path));
  if (folder.empty())
    folder = ".";
  if (sys::fs::real_path(folder, real))
    return "";
  sys::path::append(real, sys::path::filename(path));
  return std::string(real);
}
} // namespace

bool checkDistinctFiles(ArrayRef<NamedFile> files, std::string &error) {
  SmallVector<std::pair<const NamedFile *, std::string>> canonical;
  for (const NamedFile &file : files) {
    if (file.path.empty() || file.path == "-" || isSpecialFile(file.path))
      continue;
    canonical.push_back({&file, canonicalPath(file.path)});
  }
  for (size_t i = 0; i < canonical.size(); ++i) {
    for (size_t j = i + 1; j < canonical.size(); ++j) {
      const auto &[a, pathA] = canonical[i];
      const auto &[b, pathB] = canonical[j];
      bool same = !pathA.empty() && pathA == pathB;
      bool equivalent = false;
      if (!same && !sys::fs::equivalent(a->path, b->path, equivalent))
        same = equivalent;
      if (!same)
        continue;
      error = fmt::format("{} '{}' and {} '{}' are the same file, which "
                          "writing {} would destroy; give {} another path",
                          a->option, a->path, b->option, b->path, b->option,
                          b->option);
      return false;
    }
  }
  return true;
}

bool checkOutputFile(StringRef path, std::string &error) {
  if (path.empty())
    return failWith(error, "''", "an empty output file name");
  if (path == "-")
    return true;
  sys::fs::file_status status;
  std::error_code ec = sys::fs::status(path, status);
  if (!ec) {
    if (sys::fs::is_directory(status))
      return failWith(error, path, "is a directory, not a file");
    if (sys::fs::access(path, sys::fs::AccessMode::Write))
      return failWith(error, path, "is not writable");
    if (!sys::fs::is_regular_file(status))
      return true; // a device or a pipe: written directly
  } else if (ec != std::errc::no_such_file_or_directory) {
    return failWith(error, path, "cannot write it: " + ec.message());
  }
  // A regular file is written beside itself and renamed: its folder must
  // take a new file.
  SmallString<128> folder(sys::path::parent_path(path));
  if (folder.empty())
    folder = ".";
  sys::fs::file_status folderStatus;
  if (std::error_code folderError = sys::fs::status(folder, folderStatus))
    return failWith(error, path,
                    "cannot write it: its folder '" + folder +
                        "': " + folderError.message());
  if (!sys::fs::is_directory(folderStatus))
    return failWith(error, path,
                    "cannot write it: '" + folder + "' is not a folder");
  if (sys::fs::access(folder, sys::fs::AccessMode::Write))
    return failWith(error, path,
                    "cannot write it: its folder '" + folder +
                        "' is not writable");
  return true;
}

bool writeOutputFiles(ArrayRef<std::pair<std::string, std::string>> files,
                      std::string &error) {
  struct Pending {
    std::string path, temp;
  };
  SmallVector<Pending> renames;
  auto removeTemps = [&] {
    for (const Pending &p : renames)
      sys::fs::remove(p.temp);
  };

  // Regular files first, into temporary files beside them.
  for (const auto &[path, contents] : files) {
    if (path == "-" || isSpecialFile(path))
      continue;
    if (!checkOutputFile(path, error)) {
      removeTemps();
      return false;
    }
    int fd;
    SmallString<128> temp;
    if (std::error_code ec = sys::fs::createUniqueFile(
            path + ".tmp-%%%%%%", fd, temp, sys::fs::OF_None,
            sys::fs::all_read | sys::fs::all_write)) {
      removeTemps();
      return failWith(error, path, "cannot write it: " + ec.message());
    }
    renames.push_back({path, std::string(temp)});
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << contents;
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      removeTemps();
      return failWith(error, path, "cannot write it: " + message);
    }
  }

  // Then devices, pipes and standard output, directly.
  for (const auto &[path, contents] : files) {
    if (path == "-") {
      outs() << contents;
      outs().flush();
      if (outs().has_error()) {
        std::string message = outs().error().message();
        outs().clear_error();
        removeTemps();
        return failWith(error, "<stdout>", "cannot write it: " + message);
      }
      continue;
    }
    if (!isSpecialFile(path))
      continue;
    std::error_code ec;
    raw_fd_ostream os(path, ec, sys::fs::OF_None);
    if (!ec) {
      os << contents;
      os.close();
      if (os.has_error())
        ec = os.error();
      os.clear_error();
    }
    if (ec) {
      removeTemps();
      return failWith(error, path, "cannot write it: " + ec.message());
    }
  }

  for (size_t i = 0; i < renames.size(); ++i) {
    if (std::error_code ec =
            sys::fs::rename(renames[i].temp, renames[i].path)) {
      for (size_t j = i; j < renames.size(); ++j)
        sys::fs::remove(renames[j].temp);
      return failWith(error, renames[i].path,
                      "cannot write it: " + ec.message());
    }
  }
  return true;
}

} // namespace jfa
