/* KIF grammar: a document is a sequence of S-expressions. Reentrant and pure. */
%code requires {
#include "gdl/sexp.h"
typedef void *yyscan_t;
}

%define api.pure full
%define api.prefix {gdl_yy}
%define parse.error detailed
%locations
%expect 0
%lex-param { yyscan_t scanner }
%parse-param { yyscan_t scanner } { sexp_parse_ctx_t *ctx }

%union {
    sym_t sym;
    sexp_t *node;
}

%token <sym> ATOM "symbol" VAR "variable"
%token BADVAR "'?' without a name" BADSTRING "unterminated string" BADCHAR "invalid character"
%type <node> expr list

%code {
int gdl_yylex(GDL_YYSTYPE *lval, GDL_YYLTYPE *lloc, yyscan_t scanner);
static void gdl_yyerror(GDL_YYLTYPE *loc, yyscan_t scanner, sexp_parse_ctx_t *ctx, const char *msg);
static void append(sexp_t *list, sexp_t *item) {
    if (list->last) list->last->next = item; else list->first = item;
    list->last = item;
    list->n++;
}
}

%%

document
    : %empty
    | document expr {
          if (ctx->last_top) ctx->last_top->next = $2;
          else ctx->doc->first = $2;
          ctx->last_top = $2;
          ctx->doc->n++;
      }
    ;

expr
    : ATOM { $$ = sexp_new_node(ctx, SEXP_ATOM, @1.first_line, @1.first_column); $$->sym = $1; }
    | VAR  { $$ = sexp_new_node(ctx, SEXP_VAR, @1.first_line, @1.first_column); $$->sym = $1; }
    | '(' { if (++ctx->depth > SEXP_MAX_DEPTH) {
                gdl_yyerror(&@1, scanner, ctx, "parentheses nested too deeply");
                YYABORT;
            } }
      list ')' { ctx->depth--; $$ = $3; $$->line = @1.first_line; $$->col = @1.first_column; }
    ;

list
    : %empty { $$ = sexp_new_node(ctx, SEXP_LIST, 0, 0); }
    | list expr { $$ = $1; append($$, $2); }
    ;

%%

static void gdl_yyerror(GDL_YYLTYPE *loc, yyscan_t scanner, sexp_parse_ctx_t *ctx, const char *msg) {
    (void)scanner;
    if (ctx->failed) return;
    ctx->failed = true;
    diag_add(ctx->diag, ctx->file, loc->first_line, loc->first_column, "%s", msg);
}
