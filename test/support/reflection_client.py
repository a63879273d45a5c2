"""A gRPC client that knows nothing of leadflow but what server reflection tells it.

Run by reflection-client.test.ts with Debian's python3-grpcio and python3-protobuf, a stack
independent of the server's: the descriptors it gets are added to a fresh protobuf
DescriptorPool (the C++ one, which applies protoc's rules), and every method of every listed
service is called with request and response classes made from them alone.

    reflection_client.py ADDRESS BEARER_TOKEN   ->  one JSON document on stdout
"""
import json
import sys

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.internal import api_implementation

TIMEOUT_S = 10


def reflection_messages():
    """grpc.reflection.v1's messages, declared here: the client needs them before it can ask."""
    file = descriptor_pb2.FileDescriptorProto(name='client/reflection.proto', package='client', syntax='proto3')
    string, int32, bytes_, message = (descriptor_pb2.FieldDescriptorProto.TYPE_STRING, descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
                                      descriptor_pb2.FieldDescriptorProto.TYPE_BYTES, descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE)
    optional, repeated = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL, descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED

    def declare(name, *fields):
        declared = file.message_type.add(name=name)
        for field_name, number, kind, label, type_name, oneof in fields:
            field = declared.field.add(name=field_name, number=number, type=kind, label=label)
            if type_name:
                field.type_name = '.client.' + type_name
            if oneof is not None:
                if not declared.oneof_decl:
                    declared.oneof_decl.add(name='kind')
                field.oneof_index = 0

    declare('Request', ('host', 1, string, optional, None, None), ('file_by_filename', 3, string, optional, None, 0),
            ('file_containing_symbol', 4, string, optional, None, 0), ('list_services', 7, string, optional, None, 0))
    declare('FileDescriptorResponse', ('file_descriptor_proto', 1, bytes_, repeated, None, None))
    declare('ServiceResponse', ('name', 1, string, optional, None, None))
    declare('ListServiceResponse', ('service', 1, message, repeated, 'ServiceResponse', None))
    declare('ErrorResponse', ('error_code', 1, int32, optional, None, None), ('error_message', 2, string, optional, None, None))
    declare('Response', ('file_descriptor_response', 4, message, optional, 'FileDescriptorResponse', 0),
            ('list_services_response', 6, message, optional, 'ListServiceResponse', 0), ('error_response', 7, message, optional, 'ErrorResponse', 0))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_class(pool.FindMessageTypeByName('client.Request')), message_class(pool.FindMessageTypeByName('client.Response'))


def message_class(descriptor):
    if hasattr(message_factory, 'GetMessageClass'):
        return message_factory.GetMessageClass(descriptor)
    return message_factory.MessageFactory(descriptor.file.pool).GetPrototype(descriptor)


class Reflection:
    def __init__(self, channel):
        self.request, response = reflection_messages()
        self.info = channel.stream_stream('/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
                                          request_serializer=lambda message: message.SerializeToString(),
                                          response_deserializer=response.FromString)

    def ask(self, **question):
        [answer] = list(self.info(iter([self.request(**question)]), timeout=TIMEOUT_S))
        if answer.WhichOneof('kind') == 'error_response':
            raise LookupError(f'{question}: {answer.error_response.error_message}')
        return answer

    def services(self):
        return [service.name for service in self.ask(list_services='').list_services_response.service]

    def files(self, **question):
        return [descriptor_pb2.FileDescriptorProto.FromString(raw) for raw in self.ask(**question).file_descriptor_response.file_descriptor_proto]


def add_files(pool, files, report):
    """Adds dependencies first, as a pool requires; records each file's name, the pool's verdict, and
    how many fields protoc would not have written (a buf image's metadata, say)."""
    by_name = {file.name: file for file in files}

    def add(name):
        if name in report:
            return
        file = by_name[name]
        for dependency in file.dependency:
            add(dependency)
        try:
            pool.Add(file)
            report[name] = {'accepted': True, 'unknownFields': unknown_field_count(file)}
        except Exception as error:  # the pool's verdict is the finding, whatever its exception type
            report[name] = {'accepted': False, 'error': str(error)}

    for name in by_name:
        add(name)


def unknown_field_count(message):
    count = len(message.UnknownFields())
    for field, value in message.ListFields():
        if field.type != field.TYPE_MESSAGE:
            continue
        if field.label == field.LABEL_REPEATED:
            values = value.values() if field.message_type.GetOptions().map_entry and hasattr(value, 'values') else value
            count += sum(unknown_field_count(item) for item in values if hasattr(item, 'ListFields'))
        else:
            count += unknown_field_count(value)
    return count


def call(channel, service, method, token):
    """One call with an empty request; a streaming answer is read for its first message."""
    request_class, response_class = message_class(method.input_type), message_class(method.output_type)
    path = f'/{service.full_name}/{method.name}'
    kinds = {(False, False): channel.unary_unary, (False, True): channel.unary_stream,
             (True, False): channel.stream_unary, (True, True): channel.stream_stream}
    invoke = kinds[(method.client_streaming, method.server_streaming)](
        path, request_serializer=lambda message: message.SerializeToString(), response_deserializer=response_class.FromString)
    request = request_class()
    if service.full_name.startswith('grpc.reflection.'):
        request = request_class(list_services='')
    argument = iter([request]) if method.client_streaming else request
    metadata = [('authorization', f'Bearer {token}')]
    try:
        if method.server_streaming:
            stream = invoke(argument, timeout=TIMEOUT_S, metadata=metadata)
            response = next(stream)
            stream.cancel()
        else:
            response = invoke(argument, timeout=TIMEOUT_S, metadata=metadata)
        return {'code': 'OK', 'unknownFields': unknown_field_count(response), 'response': response.DESCRIPTOR.full_name}
    except grpc.RpcError as error:
        return {'code': error.code().name, 'details': error.details()}


def main(address, token):
    channel = grpc.insecure_channel(address)
    reflection = Reflection(channel)
    pool = descriptor_pool.DescriptorPool()
    services = reflection.services()
    files, methods, fields, undescribed = {}, {}, {}, {}
    for name in services:
        add_files(pool, reflection.files(file_containing_symbol=name), files)
    for name in services:
        try:
            service = pool.FindServiceByName(name)
        except KeyError as error:  # its file was refused: files[...] says why
            undescribed[name] = str(error)
            continue
        for method in service.methods:
            for message in (method.input_type, method.output_type):
                fields[message.full_name] = [{'name': field.name, 'jsonName': field.json_name} for field in message.fields]
            methods[method.full_name] = call(channel, service, method, token)
    channel.close()
    json.dump({'protobuf': api_implementation.Type(), 'services': services, 'files': files, 'undescribed': undescribed,
               'methods': methods, 'fields': fields}, sys.stdout)


if __name__ == '__main__':
    main(*sys.argv[1:3])
