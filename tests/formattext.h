/* Building blocks of hand-made event format texts for the format tests. */
#ifndef TB_FORMATTEXT_H
#define TB_FORMATTEXT_H

/* The four common fields of every Linux event, as the kernel prints them. */
#define COMMON4                                                                  \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"   \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"   \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

/* The header of a format through its common fields and the blank line. */
#define HEAD(name, id) "name: " name "\nID: " id "\nformat:\n" COMMON4 "\n"

/* The end of a format: blank line and a print fmt. */
#define TAIL "\nprint fmt: \"x\"\n"

#endif
