/* roles: the named colour roles every panel draws with. Models (mdview, results) tag
 * text with a role; only theme.c knows what a role looks like, in colour and in
 * monochrome. Listed once here as an X-macro so the enum and the names cannot drift. */
#ifndef PMPPLAB_UI_ROLES_H
#define PMPPLAB_UI_ROLES_H

#define UI_ROLES(X)                                                   \
	X(NORMAL)      /* body text */                                \
	X(DIM)         /* secondary text: paths, seeds, counts */     \
	X(TITLE)       /* the top bar */                              \
	X(KEY)         /* a key name in the key bar ("F5") */         \
	X(KEYLABEL)    /* its label ("Run") */                        \
	X(SELECTED)    /* the selected row of a list */               \
	X(STATUS)      /* the status line above the key bar */        \
	X(PASS)        /* a passed check, a passed lab */             \
	X(FAIL)        /* a failed check, an error */                 \
	X(WARN)        /* a warning, a lab in progress */             \
	X(RUNNING)     /* a check running now */                      \
	X(TAB)         /* an inactive tab name */                     \
	X(TAB_ACTIVE)  /* the active tab name */                      \
	X(H1)          /* Markdown level-1 heading */                 \
	X(H2)          /* Markdown level-2 heading */                 \
	X(H3)          /* Markdown level-3+ heading */                \
	X(EMPH)        /* *emphasis* */                               \
	X(STRONG)      /* **strong** */                               \
	X(CODE)        /* `inline code` */                            \
	X(CODEBLOCK)   /* fenced or indented code */                  \
	X(LINK)        /* [link](url) */                              \
	X(QUOTE)       /* > block quote */                            \
	X(MARKER)      /* list bullets, table and rule lines */       \
	X(SOURCE)      /* a source line under a compiler error */     \
	X(CARET)       /* the ^ under the offending column */         \
	X(HINT)        /* a revealed hint */

enum ui_role {
#define UI_ROLE_ENUM(name) ROLE_##name,
	UI_ROLES(UI_ROLE_ENUM)
#undef UI_ROLE_ENUM
	ROLE_COUNT
};

/* The role's name in lower case ("tab_active"), for tests and debugging. */
const char *role_name(enum ui_role r);

#endif
