# The columns of ``Page.node_table`` for the compiled twins: the numbers of nodes.py's NODE_COLUMNS, in its order
# (tests/package/test_node_columns.py holds the two equal).
cdef enum:
    PARENT = 0
    DEPTH = 1
    FIRST_BLOCK = 2
    END_BLOCK = 3
    N_CHILDREN = 4
    TAGS_ID = 5
    ATTRIBUTES_ID = 6
    NODE_WIDTH = 7
