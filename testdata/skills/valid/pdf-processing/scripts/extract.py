"""Print the text of a PDF file (needs pdftotext)."""
import subprocess
import sys

if __name__ == "__main__":
    print(subprocess.run(["pdftotext", sys.argv[1], "-"], capture_output=True, text=True, check=True).stdout)
