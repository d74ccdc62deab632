"""The ctypes declarations in geon/_capi.py against provider/include/geon/geon.h: same structs,
same members in the same order, same error codes. A member added to the header without its
ctypes twin (or in another place) shifts every later function pointer, so this pins it."""

import os
import re
import unittest

import _paths
from geon import _capi

HEADER = os.path.join(_paths.REPO, "provider", "include", "geon", "geon.h")


def _strip_comments(text):
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def _struct_members(text, name):
    body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (name, name), text, flags=re.S)
    assert body, "struct %s not found in geon.h" % name
    members = []
    for declaration in body.group(1).split(";"):
        declaration = " ".join(declaration.split())
        if not declaration:
            continue
        pointer = re.search(r"\(\*(\w+)\)", declaration)  # a function pointer member
        members.append(pointer.group(1) if pointer else re.findall(r"(\w+)$", declaration)[0])
    return members


class CapiMatchesHeader(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(HEADER) as f:
            cls.text = _strip_comments(f.read())

    def test_api_table_members_are_in_header_order(self):
        header = _struct_members(self.text, "GeonApi")
        declared = [name for name, _ in _capi.GeonApi._fields_]
        self.assertEqual(declared, header)

    def test_function_pointers_take_as_many_arguments_as_declared(self):
        body = re.search(r"typedef struct GeonApi \{(.*?)\} GeonApi;", self.text, flags=re.S).group(1)
        header = {}
        for name, params in re.findall(r"\(\*(\w+)\)\s*\(([^)]*)\)", body):
            params = " ".join(params.split())
            header[name] = 0 if params in ("", "void") else params.count(",") + 1
        declared = {name: len(t._argtypes_) for name, t in _capi.GeonApi._fields_ if name != "version"}
        self.assertEqual(declared, header)

    def test_tensor_and_value_info_members_match(self):
        for struct in (_capi.GeonTensor, _capi.GeonValueInfo):
            with self.subTest(struct=struct.__name__):
                declared = [name for name, _ in struct._fields_]
                self.assertEqual(declared, _struct_members(self.text, struct.__name__))

    def test_error_codes_match(self):
        enum = re.search(r"typedef enum GeonErrorCode \{(.*?)\}", self.text, flags=re.S).group(1)
        header = {name: int(value) for name, value in re.findall(r"GEON_(\w+)\s*=\s*(\d+)", enum)}
        self.assertEqual(header, {name: getattr(_capi, name) for name in header})
        self.assertEqual(set(header), set(_capi.CODE_NAMES.values()))

    def test_api_version_matches(self):
        version = int(re.search(r"#define GEON_API_VERSION (\d+)u", self.text).group(1))
        self.assertEqual(version, _capi.API_VERSION)


if __name__ == "__main__":
    unittest.main()
